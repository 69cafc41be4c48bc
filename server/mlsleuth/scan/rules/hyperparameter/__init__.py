"""Rules of category `hyperparameter`, one per module (named after the rule id)."""
