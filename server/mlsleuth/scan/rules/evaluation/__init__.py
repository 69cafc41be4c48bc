"""Rules of category `evaluation`, one per module (named after the rule id)."""
