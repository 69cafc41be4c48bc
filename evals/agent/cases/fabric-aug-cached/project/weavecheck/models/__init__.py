from . import cnn  # noqa: F401  (registers the models)
from .cnn import build_model  # noqa: F401
