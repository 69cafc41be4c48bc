from . import datasets  # noqa: F401  (registers the datasets)
