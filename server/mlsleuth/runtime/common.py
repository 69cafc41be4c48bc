"""Pieces shared by the parent side of ``trace`` and ``diagnose``.

Interpreter choice, building the child, turning how the child ended into
:class:`~mlsleuth.report.ErrorEntry` objects, and a small finding builder.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any

CHILD_DIR = Path(__file__).resolve().parent / "child"
VENV_CANDIDATES = (".venv/bin/python", "venv/bin/python", ".venv/Scripts/python.exe", "venv/Scripts/python.exe")
PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


class RuntimeInputError(ValueError):
    """Input the user can fix (missing script, bad interpreter, bad step count)."""


def venv_search_folders(folder: Path) -> list[Path]:
    """The folders whose ``.venv``/``venv`` may supply the interpreter: up to the project root, else ``folder`` alone."""
    chain = [folder, *folder.parents]
    for i, candidate_dir in enumerate(chain):
        if any((candidate_dir / m).exists() for m in PROJECT_MARKERS):
            return chain[: i + 1]
    return [folder]


def choose_interpreter(python: str | None, near: Path) -> tuple[str, str]:
    """``(interpreter, how it was chosen)``.

    Order: ``--python``; a project virtual environment (``.venv``/``venv``) in the
    script's folder or a parent up to the project root (the nearest folder holding
    pyproject.toml, setup.py, setup.cfg or .git); else the interpreter running mlsleuth.
    Without a project root above the script only the script's own folder is searched:
    climbing further would run whatever ``.venv`` someone left in a shared parent
    (``/tmp/.venv``, a home folder), code the user never chose.
    """
    if python:
        path = Path(python).expanduser()
        if not path.exists():
            raise RuntimeInputError(f"--python {python}: no such file")
        if not os.access(path, os.X_OK) or path.is_dir():
            raise RuntimeInputError(f"--python {python}: not an executable interpreter")
        return str(path), "--python"
    for candidate_dir in venv_search_folders(near.resolve()):
        for rel in VENV_CANDIDATES:
            cand = candidate_dir / rel
            if cand.is_file() and os.access(cand, os.X_OK):
                return str(cand), f"project virtual environment {candidate_dir / rel.split('/')[0]}"
    return sys.executable, "the interpreter running mlsleuth; no --python given and no .venv/venv found next to the script"


def write_config(child: Any, config: dict[str, Any]) -> None:
    """Write the harness config into the child's scratch folder and pass its path as argv[1]."""
    path = child.scratch / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    child.argv.append(str(path))


def last_progress_step(result: Any) -> int | None:
    """The last completed step: the child's unthrottled step count, else its latest progress line."""
    steps = [e.get("step") for e in result.progress if isinstance(e.get("step"), int) and not e.get("replay")]
    recorded = getattr(result, "last_step", None)
    if isinstance(recorded, int):
        steps.append(recorded)
    return max(steps) if steps else None


def raised_at(exc: dict[str, Any]) -> str:
    """`` (at train.py:42 in forward: `return self.fc(x)`)``: the user's own frame the child found, or ``""``."""
    frame = exc.get("user_frame") or {}
    if not frame.get("file"):
        return ""
    code = f": `{frame['code']}`" if frame.get("code") else ""
    return f" (at {frame['file']}:{frame.get('line')} in {frame.get('function')}{code})"


def child_errors(result: Any, *, tool: str, path: str | None, interpreter: str) -> list:
    """ErrorEntries for every way the child did not end cleanly (empty when it did)."""
    from mlsleuth.report import ErrorEntry

    errors: list[ErrorEntry] = []
    payload = result.result or {}
    stderr = result.excerpt("stderr", 4000) or None
    if result.cancelled:
        errors.append(ErrorEntry(kind="cancelled", message="the run was cancelled; the child process group was killed", path=path))
        return errors
    if result.timed_out:
        last = last_progress_step(result)
        where = f"after {last} completed optimizer step(s)" if last is not None else "before the first optimizer step completed"
        errors.append(ErrorEntry(
            kind="timeout",
            message=f"the script {result.describe_end()}, {where}. If the script is slow rather than stuck, raise --timeout "
                    f"or lower --steps; if it is stuck, the stderr tail shows where.",
            path=path, detail=stderr,
        ))
        return errors
    status = payload.get("status")
    exc = payload.get("exception") or {}
    if status == "harness-error":
        missing_torch = exc.get("type") == "ModuleNotFoundError" and "torch" in exc.get("message", "")
        msg = (f"torch is not importable by {interpreter}; pass --python with the interpreter of the project's environment"
               if missing_torch else f"the {tool} harness could not start: {exc.get('type')}: {exc.get('message')}")
        errors.append(ErrorEntry(kind="environment" if missing_torch else "harness-error", message=msg, path=path, detail=exc.get("traceback")))
        return errors
    if result.result is None:
        if result.signal_name == "SIGKILL":
            kind, why = "out-of-memory", "probably ran out of memory (killed by SIGKILL, the kernel's OOM killer's signal)"
        elif result.returncode not in (0, None):
            kind, why = "crash", f"crashed ({result.describe_end()}) without writing a result"
        else:
            kind, why = "no-result", "exited without writing a result"
        if "No module named 'torch'" in (result.stderr_tail or ""):
            kind, why = "environment", f"could not import torch with {interpreter}; pass --python with the project's interpreter"
        last = last_progress_step(result)
        where = f"; last completed optimizer step: {last}" if last is not None else ""
        extra = f" ({result.result_error})" if result.result_error else ""
        errors.append(ErrorEntry(kind=kind, message=f"the child process {why}{extra}{where}", path=path, detail=stderr))
        return errors
    if status == "exception":
        last = payload.get("last_good_step")
        where = f"after step {last} (the last completed optimizer step)" if last is not None else "before the first optimizer step completed"
        text = exc.get("message", "").lower()
        oom = exc.get("type") in ("MemoryError", "OutOfMemoryError") or "out of memory" in text or "can't allocate memory" in text
        kind = "out-of-memory" if oom else "user-exception"
        errors.append(ErrorEntry(
            kind=kind,
            message=f"the user's code raised {exc.get('type')}: {exc.get('message', '')[:300]}{raised_at(exc)} {where}; findings below cover the steps before it",
            path=path, detail=exc.get("traceback"),
        ))
    elif status == "exit":
        errors.append(ErrorEntry(kind="user-exit", message=f"the script called sys.exit({payload.get('exit_code')}) after {payload.get('steps', 0)} step(s)", path=path, detail=stderr))
    for err in payload.get("observer_errors", [])[:5]:
        errors.append(ErrorEntry(kind="internal-error", message=f"mlsleuth's {err.get('observer')} observer failed in {err.get('hook')} (a bug in mlsleuth; other checks still ran)", detail=err.get("traceback")))
    return errors


# The child writes NaN and infinities as these strings (JSON has no such numbers).
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
# Keys whose values are names or labels, never measured numbers: left as written even if one reads "inf".
_NAME_KEYS = frozenset({"name", "module", "parameter", "where", "type", "kind", "op", "fn", "path", "file",
                        "function", "reduction", "dtype", "device", "phase", "loss", "label", "class", "root",
                        "mixing_after", "mixing_before"})


def decode_non_finite(value: Any, key: str | None = None) -> Any:
    """The child's measurements with its "nan"/"inf"/"-inf" strings turned back into floats.

    Checks compare measured numbers with thresholds; a layer whose output or gradient blew up must
    reach them as a float NaN, not as a string that makes the comparison raise.
    """
    if isinstance(value, str):
        return value if key in _NAME_KEYS else _NON_FINITE.get(value, value)
    if isinstance(value, dict):
        return {k: decode_non_finite(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_non_finite(v, key) for v in value]
    return value


def fmt(x: Any, digits: int = 3) -> str:
    """Compact number formatting for observations."""
    if x is None:
        return "n/a"
    if isinstance(x, str):
        return x
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return str(x)
    if not math.isfinite(x):
        return str(x)
    if x == 0:
        return "0"
    if abs(x) >= 1e4 or abs(x) < 1e-3:
        return f"{x:.{digits - 1}e}"
    return f"{x:.{digits}g}"


def group_by_module(names: list[tuple[str, str]], all_params: list[tuple[str, str]]) -> list[tuple[str, list[str]]]:
    """Collapse flagged parameters to the shallowest modules whose parameters are *all* flagged.

    ``names`` and ``all_params`` are ``(parameter name, module name)`` pairs.
    Returns ``[(module, [parameter names])]``; module '' means the whole model.
    """
    flagged = {p for p, _ in names}
    groups: dict[str, list[str]] = {}
    for pname, module in names:
        parts = module.split(".") if module else []
        chosen = module
        for depth in range(len(parts) + 1):
            prefix = ".".join(parts[:depth])
            under = [p for p, m in all_params if m == prefix or m.startswith(prefix + ".") or (prefix == "")]
            if under and all(p in flagged for p in under):
                chosen = prefix
                break
        groups.setdefault(chosen, []).append(pname)
    return sorted(groups.items())
