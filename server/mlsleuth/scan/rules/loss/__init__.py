"""Rules of category `loss`, one per module (named after the rule id)."""
