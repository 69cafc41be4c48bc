"""loadcast: next-hour electricity load forecasting for feeder substations."""

__version__ = "0.5.0"
