"""gridcast: multi-horizon forecasting of substation load curves."""

__version__ = "0.3.1"
