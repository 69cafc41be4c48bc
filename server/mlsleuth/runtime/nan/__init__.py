"""``mlsleuth nan``: localise where the first NaN/Inf of a training run is born.

::

    from mlsleuth.runtime.nan import prepare_nan, locate_nan
    prepared = prepare_nan("train.py", args=["--lr", "3"], max_steps=500)  # the entry point
    report = prepared.run()            # or locate_nan("model.py:setup", max_steps=200), the blocking convenience

* ``run``     - ``prepare_nan`` (validate, build the child) and the report built from its result;
* ``checks``  - every nan check, one decorated function each (id, category, severity, docs, code);
* ``explain`` - the sentences that say why an operation went non-finite and what confirms it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["locate_nan", "prepare_nan"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from mlsleuth.runtime.nan import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
