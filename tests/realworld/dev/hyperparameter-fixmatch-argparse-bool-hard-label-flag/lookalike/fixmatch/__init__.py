from .algorithm import FixMatch
from .nets import build_net

__all__ = ["FixMatch", "build_net"]
