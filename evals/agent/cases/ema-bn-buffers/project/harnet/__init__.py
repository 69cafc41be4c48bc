"""harnet: activity recognition from wrist accelerometer windows."""

__version__ = "0.3.1"
