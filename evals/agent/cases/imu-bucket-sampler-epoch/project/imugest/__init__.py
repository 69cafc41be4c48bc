"""imugest: gesture recognition from wrist IMU recordings of variable length."""
__version__ = "0.5.2"
