from .datamodule import LinkDataModule, build_datamodule  # noqa: F401
from . import synth  # noqa: F401  (registers the graph generators)
