"""The child side of the MCP ``scan`` tool.

A scan parses and analyses files the caller chose; one pathological file can
keep a parser busy for minutes inside a single call, where no cancellation
point is reached. In a worker thread a timeout could only abandon that work:
the thread kept parsing and the next scans started beside it, past the
server's limit of two at once. So the server runs each scan here, in a child
process started through :func:`mlsleuth.serving.running.run_child`: a timeout
or a cancel kills its whole process group (the scan's worker pool included),
its memory is capped, and the limiter's slot is held until it is dead.

Protocol: ``python -c BOOTSTRAP PACKAGE_PARENT scan_child ARGS_PICKLE`` (see
:func:`child_argv`). The arguments file, in the run's private scratch folder
(``mkdtemp``: readable by this user only), holds the keyword arguments of
:func:`mlsleuth.scan.scan_paths` as the server built them (a ``Config`` and a
``Selection``); pickle because they are mlsleuth's own objects, written by the
server a moment earlier, never anything a project supplies. The child writes
one JSON object to ``MLSLEUTH_RESULT``:

* ``{"status": "ok", "report": "<Report JSON>"}``
* ``{"status": "input-error", "message": ...}`` - a ``ConfigError`` (unknown rule id, bad setting);
* ``{"status": "internal-error", "message": ..., "traceback": ...}`` - a bug in mlsleuth.
"""

from __future__ import annotations

import pickle
import sys
import traceback
from pathlib import Path
from typing import Any

ARGS_FILE = "scan_args.pickle"


def write_args(scratch: Path, args: dict[str, Any]) -> Path:
    path = scratch / ARGS_FILE
    with path.open("wb") as fh:
        pickle.dump(args, fh, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def child_argv(args_path: Path) -> list[str]:
    from mlsleuth.serving.sweep_child import child_argv as mlsleuth_child_argv

    return mlsleuth_child_argv(str(args_path), module="scan_child")


def run(args: dict[str, Any]) -> dict[str, Any]:
    from mlsleuth.config import ConfigError
    from mlsleuth.runtime.child.channel import progress
    from mlsleuth.scan import scan_paths

    def on_progress(done: int, total: int) -> None:
        progress(f"{done}/{total} files", done, total)

    labels = args.pop("paths")
    try:
        report = scan_paths(labels, progress=on_progress, **args)
    except ConfigError as exc:
        return {"status": "input-error", "message": str(exc)}
    return {"status": "ok", "report": report.model_dump_json()}


def main(argv: list[str]) -> int:
    from mlsleuth.runtime.child.channel import write_result

    try:
        with open(argv[0], "rb") as fh:
            args = pickle.load(fh)  # our own file in our private scratch folder (see above)
        payload = run(args)
    except Exception as exc:  # noqa: BLE001 - reported to the server, which says it is a bug
        payload = {"status": "internal-error", "message": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(limit=12)[-4000:]}
    write_result(payload)
    return 0


if __name__ == "__main__":  # pragma: no cover - started through child_argv
    raise SystemExit(main(sys.argv[1:]))
