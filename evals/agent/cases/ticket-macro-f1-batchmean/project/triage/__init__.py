"""triage: route support tickets to the right queue from their text."""
__version__ = "1.4.0"
