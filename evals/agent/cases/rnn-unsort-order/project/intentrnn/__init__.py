"""intentrnn: intent classification for the support chat bot."""

__version__ = "0.2.0"
