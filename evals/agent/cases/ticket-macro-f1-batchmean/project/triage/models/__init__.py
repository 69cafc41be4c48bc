from . import bag  # noqa: F401  (registers the models)
from .bag import build_model  # noqa: F401
