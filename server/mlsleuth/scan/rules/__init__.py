"""Every static rule, one module per theme. Importing this package registers them all."""

from mlsleuth.scan.rules import numerical  # noqa: F401
from mlsleuth.scan.rules import loss  # noqa: F401
from mlsleuth.scan.rules import data  # noqa: F401
from mlsleuth.scan.rules import reproducibility  # noqa: F401
from mlsleuth.scan.rules import checkpoint  # noqa: F401
from mlsleuth.scan.rules import training_loop  # noqa: F401
from mlsleuth.scan.rules import evaluation  # noqa: F401
from mlsleuth.scan.rules import architecture  # noqa: F401
from mlsleuth.scan.rules import optimizer  # noqa: F401
from mlsleuth.scan.rules import optimizer_state  # noqa: F401
