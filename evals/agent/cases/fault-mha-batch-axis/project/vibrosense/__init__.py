"""vibrosense: a small research framework (config, registries, trainer with callbacks)."""

__version__ = "0.4.2"
