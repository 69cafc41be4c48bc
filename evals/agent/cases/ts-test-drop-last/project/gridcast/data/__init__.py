from .factory import borders, build_loaders, build_splits, make_loader
from .scaling import StandardScaler
from .windows import ForecastWindows

__all__ = ["borders", "build_loaders", "build_splits", "make_loader", "StandardScaler", "ForecastWindows"]
