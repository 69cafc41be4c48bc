"""Rules of category `reproducibility`, one per module (named after the rule id)."""
