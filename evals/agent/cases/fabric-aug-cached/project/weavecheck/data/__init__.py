from . import datasets, transforms  # noqa: F401  (registers datasets and transforms)
