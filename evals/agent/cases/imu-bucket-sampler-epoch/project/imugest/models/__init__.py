from . import convnet  # noqa: F401  (registers the models)
from .convnet import build_model  # noqa: F401
