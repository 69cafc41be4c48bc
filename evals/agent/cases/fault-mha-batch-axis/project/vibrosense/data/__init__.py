from .loaders import build_datasets, build_loaders

__all__ = ["build_datasets", "build_loaders"]
