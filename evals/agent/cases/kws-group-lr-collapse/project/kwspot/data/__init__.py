from . import datasets, transforms  # noqa: F401  (registers the datasets and transforms)
