from .datasets import build_loaders  # noqa: F401
