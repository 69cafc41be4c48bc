"""Rules of category `distributed`, one per module (named after the rule id)."""
