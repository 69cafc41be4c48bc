"""``mlsleuth trace``: run a real training script under observation.

::

    from mlsleuth.runtime.trace import prepare_trace, trace
    prepared = prepare_trace("train.py", args=["--epochs", "1"], steps=20)  # the entry point
    report = prepared.run()            # or trace("train.py", ...), the blocking convenience

* ``run``    - ``prepare_trace`` (validate, build the child) and the report built from its result;
* ``checks`` - every trace check, one decorated function each (id, category, severity, docs, code).

The child side is :mod:`mlsleuth.runtime.child` (``trace_main.py``, ``trace_observer.py``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["prepare_trace", "trace"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from mlsleuth.runtime.trace import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
