"""Rules of category `training-loop`, one per module (named after the rule id)."""
