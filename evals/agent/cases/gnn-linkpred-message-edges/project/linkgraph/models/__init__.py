from . import decoder, encoder  # noqa: F401  (register components)
from .linkmodel import LinkModel, build_model  # noqa: F401
