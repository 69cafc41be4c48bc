"""Every static rule, one module per rule: ``rules/<category>/<rule_id>.py``.

Importing this package registers them all: :func:`~mlsleuth.scan.registry.load_rule_modules`
walks the package, so a new rule is one new file. ``loop_rule_base`` holds the
base classes and helpers the training-loop rules share.
"""

from mlsleuth.scan.registry import load_rule_modules

load_rule_modules()
