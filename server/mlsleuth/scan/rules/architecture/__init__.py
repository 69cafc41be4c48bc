"""Rules of category `architecture`, one per module (named after the rule id)."""
