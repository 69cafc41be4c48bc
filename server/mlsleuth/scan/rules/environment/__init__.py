"""Rules of category `environment` (precision, devices, numeric formats), one per module (named after the rule id)."""
