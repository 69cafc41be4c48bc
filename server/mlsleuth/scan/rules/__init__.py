"""Every static rule, one module per theme. Importing this package registers them all."""

from mlsleuth.scan.rules import numerical  # noqa: F401
