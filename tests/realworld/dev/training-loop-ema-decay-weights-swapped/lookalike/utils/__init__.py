from .ema import EMAModel

__all__ = ["EMAModel"]
