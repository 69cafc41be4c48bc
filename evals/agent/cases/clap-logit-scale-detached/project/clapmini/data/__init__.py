from .dataset import build_loaders  # noqa: F401
