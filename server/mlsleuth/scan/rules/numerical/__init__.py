"""Rules of category `numerical`, one per module (named after the rule id)."""
