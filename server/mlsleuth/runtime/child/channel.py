"""Child-side helpers for reporting back to :class:`mlsleuth.process_runner.ChildRun`.

This module runs inside the user's interpreter, so it needs only the standard
library. Harness scripts may import it (when mlsleuth is importable there) or
copy nothing and follow the same protocol: write one JSON object to the path
in ``MLSLEUTH_RESULT`` (atomically) and append JSON lines to the path in
``MLSLEUTH_PROGRESS``.
"""

from __future__ import annotations

import json
import math
import os
import time
from typing import Any

RESULT_ENV = "MLSLEUTH_RESULT"
PROGRESS_ENV = "MLSLEUTH_PROGRESS"
STEP_ENV = "MLSLEUTH_STEP"  # a small file holding the last completed step, rewritten in place at every step


def jsonable(value: Any) -> Any:
    """Make numbers JSON-safe: NaN and infinities become strings."""
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def write_result(payload: dict[str, Any]) -> None:
    path = os.environ.get(RESULT_ENV)
    if not path:
        raise RuntimeError(f"{RESULT_ENV} is not set: this harness must be started by mlsleuth")
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(jsonable(payload), fh)
    os.replace(tmp, path)


# The parent polls the progress file a few times a second and the MCP client wants an
# update every few seconds, so one line per optimizer step (thousands a minute on a
# small model) would only cost the watched run an open/write/close per step.
PROGRESS_MIN_INTERVAL_S = 0.25
_last_progress_at: float | None = None


def progress(
    message: str,
    done: float | None = None,
    total: float | None = None,
    *,
    force: bool = False,
    **extra: Any,
) -> bool:
    """Append one progress event; return whether it was written.

    Events closer than :data:`PROGRESS_MIN_INTERVAL_S` to the previous one are
    dropped, except the first, the last (``done == total``) and ``force=True``
    ones (a change of phase the parent should hear about at once).
    """
    global _last_progress_at
    step = extra.get("step")
    if isinstance(step, int) and not isinstance(step, bool) and not extra.get("replay"):
        record_step(step)
    path = os.environ.get(PROGRESS_ENV)
    if not path:
        return False
    now = time.monotonic()
    finished = done is not None and total is not None and done >= total
    recent = _last_progress_at is not None and now - _last_progress_at < PROGRESS_MIN_INTERVAL_S
    if recent and not (force or finished):
        return False
    _last_progress_at = now
    event = {"t": time.time(), "message": message, "done": done, "total": total, **extra}
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(jsonable(event)) + "\n")
    return True


# Progress is throttled, so after a crash that skips every handler (os._exit, SIGKILL, the
# out-of-memory killer) the last progress line can be many steps old. The step count itself
# is never throttled: it is rewritten in place (one pwrite on a file kept open, no open or
# close per step) and the parent reads it when the child has ended, whatever the way.
_step_fd: int | None = None
_step_path: str | None = None
_step_max = -1


def record_step(step: int) -> None:
    """Note that ``step`` optimizer steps have completed (the highest one seen counts)."""
    global _step_fd, _step_path, _step_max
    if step <= _step_max:
        return
    path = os.environ.get(STEP_ENV)
    if not path:
        return
    try:
        if _step_fd is None or _step_path != path:
            _step_fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
            _step_path = path
        os.pwrite(_step_fd, b"%20d\n" % step, 0)  # fixed width: a shorter number never leaves digits behind
    except OSError:
        return  # the count is advisory, like progress
    _step_max = step
