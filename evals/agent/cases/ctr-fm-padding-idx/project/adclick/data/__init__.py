from .dataset import build_data
from .encoders import CategoryEncoder, TableEncoder
from .simulate import FIELD_NAMES, simulate

__all__ = ["build_data", "CategoryEncoder", "TableEncoder", "FIELD_NAMES", "simulate"]
