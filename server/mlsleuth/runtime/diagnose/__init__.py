"""``mlsleuth diagnose FILE:FUNCTION``: the cheap check battery on a model the user hands over.

::

    from mlsleuth.runtime.diagnose import prepare_diagnose, diagnose
    prepared = prepare_diagnose("train.py:setup", steps=200, lr_range=True)  # the entry point
    report = prepared.run()            # or diagnose("train.py:setup", ...), the blocking convenience

* ``run``    - ``prepare_diagnose`` (validate, build the child) and the report built from its result;
* ``checks`` - every diagnose check, one decorated function each (id, category, severity, docs, code).

The setup-function contract is documented in ``mlsleuth/runtime/child/setup_contract.py``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["diagnose", "prepare_diagnose"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from mlsleuth.runtime.diagnose import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
