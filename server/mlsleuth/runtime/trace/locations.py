"""Where a user's call site the child recorded is shown in a trace finding."""

from __future__ import annotations

import os
from typing import Any


def site_location(run: Any, rec: dict) -> dict[str, Any]:
    """``path``/``line`` of a call site the child recorded (``rec["path"]``, ``rec["line"]``), shown beside the
    traced script's path when it lies in the script's folder; empty when the child recorded none."""
    path, line = rec.get("path"), rec.get("line")
    if not path or not line:
        return {}
    script_dir = run.data.get("script_dir")
    if script_dir and path.startswith(script_dir.rstrip(os.sep) + os.sep):
        return {"path": os.path.join(os.path.dirname(run.path or ""), os.path.relpath(path, script_dir)), "line": line}
    return {"path": path, "line": line}
