from . import net  # noqa: F401  (registers the models)
from .net import build_model  # noqa: F401
