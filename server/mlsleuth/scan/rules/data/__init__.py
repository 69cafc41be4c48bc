"""Rules of category `data`, one per module (named after the rule id)."""
