"""The child side of the ``compare_sweep`` MCP tool.

The comparison reads a user-given results file (a million-row CSV takes
seconds; a FIFO or a stalled network mount blocks forever inside ``open``) and
computes in numpy: neither can stop at a cancellation point, and the reader
turns the garbage collector off while it parses. So the server runs it here,
in a child process started through :func:`mlsleuth.serving.running.run_child`,
which kills the child's process group on cancel or timeout and keeps the
server's memory flat.

Protocol: ``python -c BOOTSTRAP PACKAGE_PARENT sweep_child ARGS_JSON`` (see
:func:`child_argv`); the arguments are the keyword arguments of
:func:`mlsleuth.sweep.compare_sweep` plus ``results`` (an absolute path) and
``plot``. The child
writes one JSON object to ``MLSLEUTH_RESULT``:

* ``{"status": "ok", "report": "<Report JSON>", "png": "<base64>"|null, "plot": {...}|null}``
* ``{"status": "input-error", "message": ...}`` - a ``SweepInputError``: the message says what to change;
* ``{"status": "plot-unavailable", "message": ...}`` - matplotlib is not installed;
* ``{"status": "internal-error", "message": ..., "traceback": ...}`` - a bug in mlsleuth.
"""

from __future__ import annotations

import base64
import json
import sys
import traceback
from pathlib import Path
from typing import Any

# Images larger than this on their long edge are downscaled by the clients'
# models anyway (Claude: 1568 px); larger files only cost transfer and context.
MAX_PLOT_EDGE_PX = 1568
MAX_PLOT_BYTES = 1_000_000
PLOT_DPI = 110  # mlsleuth.sweep.plot's default
MIN_PLOT_DPI = 40

# Runs in the child before mlsleuth is imported. It drops the working folder
# (the user's project) from sys.path, so no file there can shadow a module the
# analysis imports, and makes sure the child imports the *same* mlsleuth as the
# server (an editable checkout, a wheel, a path added by a test) without
# putting site-packages ahead of the standard library when the normal import
# already finds it.
BOOTSTRAP = (
    "import importlib.util, os, sys\n"
    "sys.path[:] = [p for p in sys.path if p not in ('', '.', os.getcwd())]\n"
    "want = sys.argv[1]\n"
    "spec = importlib.util.find_spec('mlsleuth')\n"
    "origin = os.path.realpath(spec.origin) if spec is not None and spec.origin else ''\n"
    "if not origin.startswith(os.path.join(want, 'mlsleuth') + os.sep):\n"
    "    sys.path.insert(0, want)\n"
    "from importlib import import_module\n"
    "main = import_module('mlsleuth.serving.' + sys.argv[2]).main\n"
    "raise SystemExit(main(sys.argv[3:]))\n"
)


def child_argv(args: dict[str, Any] | str, module: str = "sweep_child") -> list[str]:
    """The command that runs ``mlsleuth.serving.<module>.main`` with the server's interpreter
    (for this module: on ``args``, passed as JSON)."""
    import mlsleuth

    package_parent = str(Path(mlsleuth.__file__).resolve().parent.parent)
    return [sys.executable, "-c", BOOTSTRAP, package_parent, module, args if isinstance(args, str) else json.dumps(args)]


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    if len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def bounded_png(stats: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    """The sweep figure, re-rendered at a lower resolution until it fits
    :data:`MAX_PLOT_EDGE_PX` and :data:`MAX_PLOT_BYTES`. ImportError without matplotlib."""
    from mlsleuth.sweep.plot import MAX_GROUPS, sweep_png

    dpi = PLOT_DPI
    png = sweep_png(stats, dpi=dpi)
    for _ in range(4):
        width, height = png_size(png)
        scale = min(1.0, MAX_PLOT_EDGE_PX / max(width, height), (MAX_PLOT_BYTES / len(png)) ** 0.5)
        if scale >= 1.0 or dpi <= MIN_PLOT_DPI:
            break
        dpi = max(MIN_PLOT_DPI, int(dpi * scale * 0.97))
        png = sweep_png(stats, dpi=dpi)
    width, height = png_size(png)
    groups = len(stats.get("groups", []))
    info = {"format": "png", "width": width, "height": height, "bytes": len(png), "dpi": dpi,
            "groups_drawn": min(groups, MAX_GROUPS), "groups": groups}
    if len(png) > MAX_PLOT_BYTES:
        raise OverflowError(f"the figure is {len(png)} bytes even at {dpi} dpi")
    return png, info


def run(args: dict[str, Any]) -> dict[str, Any]:
    from mlsleuth.runtime.child.channel import progress
    from mlsleuth.sweep import compare_sweep

    results = args.pop("results")
    plot = bool(args.pop("plot", False))
    progress("reading and analysing the results", 0, 2 if plot else 1)
    try:
        report = compare_sweep(results, **args)
    except ValueError as exc:  # SweepInputError: the message says what to change
        return {"status": "input-error", "message": str(exc)}
    payload: dict[str, Any] = {"status": "ok", "png": None, "plot": None}
    if plot:
        progress("drawing the plot", 1, 2)
        try:
            png, info = bounded_png(report.summary.stats)
        except ImportError as exc:
            return {"status": "plot-unavailable", "message": f"{type(exc).__name__}: {exc}"}
        payload["png"] = base64.b64encode(png).decode("ascii")
        payload["plot"] = info
    payload["report"] = report.model_dump_json()
    return payload


def main(argv: list[str]) -> int:
    from mlsleuth.runtime.child.channel import write_result

    try:
        args = json.loads(argv[0])
        payload = run(args)
    except Exception as exc:  # noqa: BLE001 - reported to the server, which says it is a bug
        payload = {"status": "internal-error", "message": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(limit=12)[-4000:]}
    write_result(payload)
    return 0


if __name__ == "__main__":  # pragma: no cover - started through child_argv
    raise SystemExit(main(sys.argv[1:]))
