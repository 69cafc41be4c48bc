"""``mlsleuth nan``: localise where the first NaN/Inf of a training run is born.

::

    from mlsleuth.runtime.nan import prepare_nan, locate_nan
    report = locate_nan("train.py", args=["--lr", "3"], max_steps=500)
    report = locate_nan("model.py:setup", max_steps=200)      # FILE:FUNCTION

``prepare_nan`` validates the input and returns a
:class:`~mlsleuth.runtime.prepared.PreparedRun` whose child runs
``runtime/child/nan_main.py`` (the shared script runner with the NaN watcher);
``to_report`` turns the child's JSON into findings (every check is a function
in :mod:`mlsleuth.runtime.nan.checks`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DEFAULT_MAX_STEPS = 1000
MAX_MAX_STEPS = 10_000_000
DEFAULT_TIMEOUT_S = 600.0
DEFAULT_SNAPSHOT_EVERY = 10
DEFAULT_MEMORY_BUDGET_MB = 256.0
DEFAULT_SAVE_DIR = ".mlsleuth/nan"


def split_target(target: str) -> tuple[str, str | None]:
    """``(file, function)`` for ``FILE:FUNCTION``, ``(file, None)`` for a script."""
    text = str(target)
    head, sep, tail = text.rpartition(":")
    if sep and head and tail.isidentifier() and not text.endswith(".py"):
        return head, tail
    return text, None


def keep_out_of_version_control(folder: Path) -> None:
    """Create mlsleuth's working folder with a ``.gitignore`` that ignores everything in it.

    It holds pickled model and optimizer snapshots and saved batches: large, possibly
    private, never source. An existing ``.gitignore`` there is left as it is; a folder
    that cannot be written is left for the child to report.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        ignore = folder / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# Created by mlsleuth: snapshots and saved batches, not source.\n*\n", encoding="utf-8")
    except OSError:
        pass


def prepare_nan(
    target: str | os.PathLike[str],
    *,
    args: Sequence[str] = (),
    max_steps: int = DEFAULT_MAX_STEPS,
    snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
    memory_budget_mb: float = DEFAULT_MEMORY_BUDGET_MB,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    python: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    save_dir: str | os.PathLike[str] | None = None,
    replay: bool = True,
    memory_limit_mb: int | None = None,
    nproc_per_node: int | None = None,
):
    """Validate and build (not start) a NaN-localisation run of a script or a ``FILE:FUNCTION`` setup.

    ``save_dir``: where the offending batch and last good snapshot are written
    (default ``.mlsleuth/nan`` under ``cwd``). Raises
    :class:`mlsleuth.runtime.common.RuntimeInputError` for input the user can fix.
    """
    from mlsleuth.process_runner import ChildRun
    from mlsleuth.runtime.common import (
        CHILD_DIR,
        RuntimeInputError,
        choose_interpreter,
        write_config,
    )
    from mlsleuth.runtime.prepared import PreparedRun

    file, function = split_target(str(target))
    path = Path(file)
    if not path.exists():
        raise RuntimeInputError(f"no such file: {file}" + (" (expected SCRIPT or FILE:FUNCTION)" if function is None else ""))
    if path.is_dir():
        raise RuntimeInputError(f"{file} is a folder; pass the training script (a .py file) or FILE:FUNCTION")
    if path.suffix == ".ipynb":
        raise RuntimeInputError(f"{file} is a notebook; export it with `jupyter nbconvert --to script` first")
    if function is not None and args:
        raise RuntimeInputError("script arguments after `--` apply to SCRIPT mode only, not to FILE:FUNCTION")
    for name, value, low in (("--max-steps", max_steps, 1), ("--snapshot-every", snapshot_every, 0)):
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= MAX_MAX_STEPS:
            raise RuntimeInputError(f"{name} must be an integer between {low} and {MAX_MAX_STEPS}, got {value!r}")
    if not isinstance(memory_budget_mb, (int, float)) or memory_budget_mb <= 0:
        raise RuntimeInputError(f"--memory-budget must be a positive number of MB, got {memory_budget_mb!r}")
    if not timeout_s or timeout_s <= 0:
        raise RuntimeInputError("--timeout must be a positive number of seconds")
    from mlsleuth.runtime import multirank

    multirank.check_nproc(nproc_per_node)
    if nproc_per_node and multirank.external_world():
        raise RuntimeInputError("--nproc-per-node launches the ranks itself; under torchrun/srun (RANK and WORLD_SIZE set) leave it out")
    if nproc_per_node and function is not None:
        raise RuntimeInputError("--nproc-per-node applies to SCRIPT mode only, not to FILE:FUNCTION")
    interpreter, chosen_by = choose_interpreter(python, path.parent)
    workdir = Path(cwd) if cwd is not None else Path.cwd()
    if not workdir.is_dir():
        raise RuntimeInputError(f"--cwd {workdir}: no such folder")
    out_dir = Path(save_dir) if save_dir is not None else workdir / DEFAULT_SAVE_DIR
    outside = None if nproc_per_node else multirank.external_world()  # started by torchrun/srun
    if outside is not None and outside[1] > 1:
        out_dir = out_dir / f"rank{outside[0]}"  # the ranks must not overwrite each other's saved batch
    if save_dir is None:
        keep_out_of_version_control(workdir / Path(DEFAULT_SAVE_DIR).parts[0])
    display = _display(path, workdir)
    config: dict[str, Any] = {
        "mode": "function" if function else "script",
        "max_steps": max_steps,
        "snapshot_every": snapshot_every,
        "memory_budget_mb": float(memory_budget_mb),
        "save_dir": str(out_dir.resolve()),
        "replay": bool(replay),
        "timeout_s": timeout_s,
        "tool": "nan",
        "nproc_per_node": nproc_per_node,
        "hang_dump_after_s": timeout_s - min(max(0.15 * timeout_s, 3.0), 20.0),
    }
    if function:
        config["spec"] = f"{path.resolve()}:{function}"
    else:
        config.update({"script": str(path.resolve()), "argv": [str(a) for a in args]})
    child = ChildRun([interpreter, str(CHILD_DIR / "nan_main.py")], cwd=workdir, timeout_s=timeout_s, memory_limit_mb=memory_limit_mb)
    write_config(child, config)
    shown = f"{display}:{function}" if function else display
    info = {"interpreter": interpreter, "interpreter_chosen_by": chosen_by, "target": shown, "mode": config["mode"],
            "max_steps": max_steps, "snapshot_every": snapshot_every, "memory_budget_mb": float(memory_budget_mb),
            "timeout_s": timeout_s}
    command = f"mlsleuth nan {shown}"

    if nproc_per_node:
        info["nproc_per_node"] = nproc_per_node
        command += f" --nproc-per-node {nproc_per_node}"
    from mlsleuth.runtime.nan import world

    started = world.now()

    def to_report(result: Any):
        if multirank.is_world(result.result):
            return world.world_report(result, info=info, path=display, command=command, build_single=build_report)
        if outside is not None and outside[1] > 1:
            return world.under_launcher(result, rank_world=outside, folder=world.ranks_folder(workdir), started=started,
                                        wait_s=timeout_s + 30, info=info, path=display, command=command, build_single=build_report)
        return build_report(result, info=info, path=display, command=command)

    return PreparedRun(tool="nan", child=child, to_report=to_report, description=f"nan {shown} (up to {max_steps} steps)",
                       total_steps=max_steps, info=info)


def locate_nan(target: str | os.PathLike[str], **kwargs: Any):
    """Blocking convenience: prepare, run and report (see :func:`prepare_nan`)."""
    return prepare_nan(target, **kwargs).run()


def build_report(result: Any, *, info: dict[str, Any], path: str, command: str):
    from mlsleuth.report import ErrorEntry, Report
    from mlsleuth.runtime.common import child_errors

    report = Report(tool="nan")
    payload = result.result or {}
    status = payload.get("status")
    if status == "setup-error":
        exc = payload.get("exception") or {}
        report.errors.append(ErrorEntry(kind="setup-error", path=path,
                                        message=f"the setup function could not be used: {exc.get('type')}: {exc.get('message')}",
                                        detail=exc.get("traceback") or None))
    else:
        report.errors.extend(child_errors(result, tool="nan", path=path, interpreter=info["interpreter"]))
    data = (payload.get("observers") or {}).get("nan") or {}
    if payload and status != "setup-error":
        report.findings.extend(build_findings(payload, path=path, command=command))
        replay_run = payload.get("replay_run") or {}
        if replay_run.get("status") == "replay-failed":
            report.errors.append(ErrorEntry(kind="replay-failed", path=path, message=f"the instrumented replay failed: {replay_run.get('error')}", detail=replay_run.get("stderr")))
        elif replay_run.get("status") == "exception" and not ((replay_run.get("nan") or {}).get("replay") or {}).get("reproduced"):
            exc = replay_run.get("exception") or {}
            report.errors.append(ErrorEntry(kind="replay-failed", path=path, message=f"the user's code raised {exc.get('type')} during the instrumented replay: {exc.get('message', '')[:300]}", detail=exc.get("traceback")))
        for err in replay_run.get("observer_errors") or []:
            report.errors.append(ErrorEntry(kind="internal-error", message=f"mlsleuth's nan observer failed in {err.get('hook')} during the replay (a bug in mlsleuth)", detail=err.get("traceback")))
        if status == "finished" and payload.get("steps", 0) == 0 and not data.get("failure"):
            report.errors.append(ErrorEntry(kind="no-steps", path=path, message="the script finished without calling optimizer.step(); `mlsleuth nan` watches a training loop (or use FILE:FUNCTION)"))
    steps = int(payload.get("steps") or 0)
    failure = data.get("failure")
    stats: dict[str, Any] = {**info, "duration_s": round(result.duration_s, 3), "returncode": result.returncode,
                             "status": status, "steps_watched": steps}
    if data:
        stats["snapshots"] = data.get("snapshots")
        if data.get("batch_file"):
            stats["batch_file"] = data["batch_file"]
        if failure:
            stats["failure_step"] = failure.get("step")
            stats["seconds_to_detection"] = failure.get("seconds")
        replayed = (payload.get("replay_run") or {}).get("replayed")
        if replayed:
            stats["replayed_steps"] = replayed
    report.finalize(stats=stats)
    report.summary.text = _summary(report, status, steps, failure)
    return report


def _summary(report, status: str | None, steps: int, failure: dict | None) -> str:
    from mlsleuth.runtime.nan.checks import MAIN_RULES

    main = next((f for f in report.findings if f.rule in MAIN_RULES), None)
    if main is not None:
        head = f"first non-finite value: {main.location.runtime_label()}"
    elif report.errors and not steps:
        head = f"no result: {report.errors[0].message}"
    else:
        unit = "step" if steps == 1 else "steps"
        head = f"no non-finite value within {steps} {unit}"
        if status == "finished":
            head += " (the script ran to its end)"
        elif status == "max-steps":
            head += " (stopped at --max-steps)"
    extras = [f.rule for f in report.findings if f is not main]
    if extras:
        head += f"; also: {', '.join(extras)}"
    if report.errors:
        head += f"; {len(report.errors)} error(s)"
    return head


def _display(path: Path, workdir: Path) -> str:
    try:
        return str(path.resolve().relative_to(workdir.resolve()))
    except ValueError:
        return str(path)


def build_findings(payload: dict[str, Any], *, path: str | None, command: str) -> list:
    """Every nan check's findings for one run (empty when no non-finite value appeared)."""
    from mlsleuth.runtime.nan.checks import NanRun
    from mlsleuth.runtime.registry import run_checks

    return list(run_checks("nan", NanRun(payload, path=path, command=command)))
