"""Ranks a script starts itself with ``torch.multiprocessing.spawn`` / ``start_processes`` (child side, stdlib only
at import).

Many data-parallel scripts launch their own world: ``mp.spawn(worker, args=(...), nprocs=N)`` in the main block,
``dist.init_process_group(..., rank=rank, world_size=N)`` in ``worker``. Traced as a plain script, the main
process never steps (the training runs in the spawned processes, which the runner's patches do not reach), so
the trace saw nothing and let the workers run to their end.

:class:`SpawnWatch` (observer ``"spawn"``, installed by ``trace_main`` outside a world) patches
``torch.multiprocessing.spawn.start_processes`` (which ``mp.spawn`` calls) and
``torch.multiprocessing.start_processes`` so that each process runs ``RankTarget(fn)`` instead of ``fn``. In the
spawned process :meth:`RankTarget.__call__` runs ``fn(i, *args)`` under a fresh runner with the trace observers
of a rank (``rank_sync.RankObserver`` and the others, rank ``i`` of ``nprocs``), which writes the rank's result to
its own file under the world's folder and stops at ``max_steps`` as a traced script does. After ``max_steps``
the process ends at once (``os._exit(0)``: a process group left open can block at interpreter exit); an
exception of the user's is raised again, so ``mp.spawn`` in the main process reports it as it would have.

When the script ends, :func:`world_payload` gathers the ranks' results in the rank launcher's shape
(``{"status": "ranks", "world_size", "ranks": [...]}``), which the parent merges into one report as for
``--nproc-per-node``. A watchdog thread writes that payload shortly before the run's timeout, so ranks stuck in
a collective still report where (each rank's ``RankObserver`` writes its stack at ``MLSLEUTH_HANG_AT``).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))


def _ours(module: Any) -> bool:
    return os.path.dirname(os.path.abspath(getattr(module, "__file__", "") or "")) == HERE


def _script_modules(script: str | None) -> set[str]:
    try:
        folder = os.path.dirname(os.path.abspath(script)) if script else None
        return {f[:-3] for f in os.listdir(folder) if f.endswith(".py")} if folder and folder != HERE else set()
    except OSError:
        return set()


@contextlib.contextmanager
def harness_first(script: str | None = None):
    """Import mlsleuth's bare-named modules from this folder even where the script's folder, first on ``sys.path`` in a
    spawned process, holds a module of the same name (``observer.py``, ``batch_order.py``); afterwards the script's
    own imports find its modules again."""
    try:
        own = {f[:-3] for f in os.listdir(HERE) if f.endswith(".py")}
    except OSError:
        own = set()
    foreign = {n: m for n, m in list(sys.modules.items()) if n in own and not _ours(m)}
    for n in foreign:
        del sys.modules[n]
    sys.path.insert(0, HERE)
    try:
        yield
    finally:
        if sys.path and sys.path[0] == HERE:
            del sys.path[0]
        for n in own & _script_modules(script):
            if n not in foreign and n in sys.modules and _ours(sys.modules[n]):
                del sys.modules[n]  # imported now by our modules (which keep it): the script's own import finds its file
        sys.modules.update(foreign)


with harness_first(sys.modules["__main__"].__dict__.get("__file__") if "__main__" in sys.modules else None):
    from observer import Observer, call_arg

RESULT_ENV = "MLSLEUTH_RESULT"
PROGRESS_ENV = "MLSLEUTH_PROGRESS"
STEP_ENV = "MLSLEUTH_STEP"
STACKS_ENV = "MLSLEUTH_STACKS"
HANG_AT_ENV = "MLSLEUTH_HANG_AT"
SPAWNED_ENV = "MLSLEUTH_SPAWNED_RANK"  # set in a spawned rank: it does not patch spawn again
MAX_WORLDS = 4
MAX_NPROCS = 64
TAIL = 4000


def _read_json(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as fh:
            value = json.load(fh)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _step(path: str) -> int | None:
    try:
        with open(path, "rb") as fh:
            text = fh.read(64).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


class RankTarget:
    """What each spawned process runs instead of the script's ``fn``: ``fn(i, *args)`` traced as rank ``i``.

    Picklable (a module-level class holding ``fn`` by reference, plain strings and a JSON config), as spawn needs."""

    def __init__(self, fn: Any, folder: str, nprocs: int, config: dict[str, Any]) -> None:
        self.fn = fn
        self.folder = folder
        self.nprocs = nprocs
        self.config = config

    def __call__(self, i: int, *args: Any) -> Any:
        return serve_rank(self, i, args)


def trace_observers(config: dict[str, Any], in_world: bool) -> list:
    """The observers of a traced process (``in_world``: one rank of several, which adds the cross-rank ones)."""
    import rank_grad_sync
    import rank_metrics
    import rank_sync
    from trace_generic import GenericObserver
    from trace_observer import TraceObserver
    from trace_pinn import PinnObserver
    from trace_rl import RLObserver
    from trace_terms import TermsObserver

    observers = [TraceObserver(config), PinnObserver(config), RLObserver(config), GenericObserver(config),
                 TermsObserver(config)]
    if in_world:
        observers += [rank_sync.RankObserver(config), rank_metrics.ShardEvalObserver(config), rank_grad_sync.GradSyncObserver(config)]
    else:
        from trace_replicas import ReplicaWatch

        observers += [SpawnWatch(config), ReplicaWatch(config)]
    return observers


def _leave_parent_runner() -> None:
    """A rank started with ``start_method="fork"`` inherits the main process's installed runner: remove its patches."""
    mod = sys.modules.get("run_user_script")
    runner = getattr(mod, "ACTIVE_RUNNER", None) if mod is not None else None
    if runner is not None:
        with contextlib.suppress(Exception):
            runner.uninstall()
        mod.ACTIVE_RUNNER = None
    ch = sys.modules.get("channel")
    if ch is not None:  # the step file descriptor and count are the main process's
        ch._step_fd, ch._step_path, ch._step_max = None, None, -1


def serve_rank(target: RankTarget, i: int, args: tuple) -> Any:
    sub = os.path.join(target.folder, f"rank{i}")
    try:
        os.makedirs(sub, exist_ok=True)
        os.environ.update({RESULT_ENV: os.path.join(sub, "result.json"), STEP_ENV: os.path.join(sub, "step"),
                           STACKS_ENV: os.path.join(sub, "stacks.txt"), SPAWNED_ENV: str(i)})
        if target.config.get("hang_at"):
            os.environ[HANG_AT_ENV] = f"{float(target.config['hang_at']):.3f}"
        if i != 0:
            os.environ.pop(PROGRESS_ENV, None)
        _leave_parent_runner()
        config = {**target.config, "spawned_rank": int(i), "spawned_world_size": int(target.nprocs), "after_window_s": 0.0}
        with harness_first(config.get("script")):
            import run_user_script

            observers = trace_observers(config, in_world=True)
    except Exception:  # noqa: BLE001 - mlsleuth could not set the rank up: run it untraced, as without mlsleuth
        with contextlib.suppress(Exception):
            with open(os.path.join(sub, "setup_error.txt"), "w", encoding="utf-8") as fh:
                import traceback

                fh.write(traceback.format_exc()[-3000:])
        return target.fn(i, *args)
    raised: list[BaseException] = []

    def call() -> None:
        try:
            target.fn(i, *args)
        except BaseException as exc:
            raised.append(exc)
            raise

    payload = run_user_script.run(config.get("script") or "", (), observers=observers, max_steps=config.get("max_steps"),
                                  extra={"config": config}, call=call)
    status = payload.get("status")
    if status == "finished":
        return None
    if status in ("exception", "exit") and raised and type(raised[0]).__name__ != "StopTraining":
        raise raised[0]  # as without mlsleuth: mp.spawn in the main process sees the rank fail
    for stream in (sys.stdout, sys.stderr):  # stopped at max-steps (or a non-finite loss): end the rank now
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


class SpawnWatch(Observer):
    """Observer ``"spawn"`` of the main process: hands each spawned process a :class:`RankTarget`."""

    name = "spawn"
    inner_forwards = False

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.worlds: list[dict[str, Any]] = []
        self.runner: Any = None
        self._started = time.time()
        self.patches = self._patches()

    def _patches(self) -> list[tuple[Any, str, Any]]:
        if os.environ.get(SPAWNED_ENV) is not None:
            return []
        try:
            import torch.multiprocessing as tmp

            module = sys.modules["torch.multiprocessing.spawn"]
        except Exception:  # noqa: BLE001 - no torch.multiprocessing: nothing to watch
            return []
        patches = [(module, "start_processes", self._wrap_start)]
        if getattr(tmp, "start_processes", None) is getattr(module, "start_processes", None):
            patches.append((tmp, "start_processes", self._wrap_start))
        return patches

    # observer protocol (only what is used)
    def on_start(self, runner: Any) -> None:
        self.runner = runner
        self._started = time.time()

    def result(self) -> dict[str, Any]:
        return {"worlds": [{k: w[k] for k in ("nprocs", "start_method", "folder")} for w in self.worlds]}

    def _wrap_start(self, runner: Any, original: Any):
        watch = self

        def start_processes(fn, *args, **kwargs):
            target = fn
            try:
                target = watch._target(fn, args, kwargs)
            except Exception:  # noqa: BLE001 - recorded; the processes start untraced
                runner.record_error("spawn", "start_processes")
            if target is fn:
                return original(fn, *args, **kwargs)
            world = watch.worlds[-1]
            world["running"] = True
            try:
                return original(target, *args, **kwargs)
            finally:
                world["running"] = False

        return start_processes

    def _target(self, fn: Any, args: tuple, kwargs: dict) -> Any:
        nprocs = call_arg(args, kwargs, 1, "nprocs", 1)
        start_method = call_arg(args, kwargs, 4, "start_method", "spawn")
        if not isinstance(nprocs, int) or not 1 <= nprocs <= MAX_NPROCS or len(self.worlds) >= MAX_WORLDS:
            return fn
        scratch = os.path.dirname(os.environ.get(RESULT_ENV, "")) or os.getcwd()
        folder = os.path.join(scratch, f"spawned{len(self.worlds)}")
        os.makedirs(folder, exist_ok=True)
        dump_after = self.config.get("hang_dump_after_s")
        config = {**self.config, "hang_at": self._started + float(dump_after) if dump_after else None}
        self.worlds.append({"folder": folder, "nprocs": nprocs, "start_method": str(start_method), "started": time.monotonic(),
                            "running": False})
        if dump_after and len(self.worlds) == 1:  # shortly before the timeout: the world's result, stuck ranks included
            delay = self._started + float(dump_after) - time.time()
            threading.Thread(target=self._watch, args=(delay,), name="mlsleuth-spawn-watch", daemon=True).start()
        return RankTarget(fn, folder, nprocs, config)

    # -- the world's result ---------------------------------------------------------------------------
    def _watch(self, delay: float) -> None:
        time.sleep(max(0.0, delay + 1.0))  # the ranks' own watchdogs write their stacks at the same deadline
        world = next((w for w in self.worlds if w.get("running")), None)
        if world is None:
            return
        with contextlib.suppress(Exception):
            self.write_world(world, timed_out=True)

    def write_world(self, world: dict[str, Any], *, timed_out: bool = False) -> dict[str, Any] | None:
        import channel

        payload = gather(world, timed_out=timed_out, config=self.config)
        if payload is not None:
            channel.write_result(payload)
        return payload


def gather(world: dict[str, Any], *, timed_out: bool, config: dict[str, Any]) -> dict[str, Any] | None:
    """The rank launcher's payload for one spawned world (None when no rank wrote a result)."""
    entries = []
    now = time.monotonic()
    for i in range(world["nprocs"]):
        sub = os.path.join(world["folder"], f"rank{i}")
        result = _read_json(os.path.join(sub, "result.json"))
        stacks = None
        with contextlib.suppress(OSError):
            with open(os.path.join(sub, "stacks.txt"), encoding="utf-8", errors="replace") as fh:
                stacks = fh.read()[-20000:] or None
        stuck = timed_out and (result is None or result.get("status") == "hang")
        entries.append({"rank": i, "returncode": None if stuck else 0, "result": result, "last_step": _step(os.path.join(sub, "step")),
                        "ended": "killed" if stuck else "exited",
                        "why_killed": "the run's timeout was reached while this rank still ran" if stuck else None,
                        "stacks": stacks, "duration_s": round(now - world["started"], 3), "stdout_tail": "", "stderr_tail": "",
                        "spawned": True})
    if not any(e["result"] for e in entries):
        return None
    return {"status": "ranks", "world_size": world["nprocs"], "ranks": entries, "replay": None, "config": config,
            "spawned": {"start_method": world["start_method"]},
            "steps": max((e["last_step"] or (e["result"] or {}).get("steps") or 0 for e in entries), default=0)}


def world_payload(observers: list, parent: dict[str, Any]) -> dict[str, Any] | None:
    """After the script ended: the payload of the first spawned world whose ranks reported; else the main process's
    own ``parent`` payload with the failures to set a spawned process up, if any; else None (``parent`` stands)."""
    watch = next((o for o in observers if isinstance(o, SpawnWatch)), None)
    if watch is None or not watch.worlds or parent.get("steps"):
        return None
    for world in watch.worlds:
        payload = gather(world, timed_out=False, config=watch.config)
        if payload is not None and any((e["result"] or {}).get("steps") for e in payload["ranks"]):
            payload["launcher"] = {k: parent.get(k) for k in ("status", "exception", "exit_code")}
            return payload
    failed = []  # mlsleuth could not trace a spawned process (it ran untraced): say so, as an internal error
    for world in watch.worlds:
        for i in range(world["nprocs"]):
            with contextlib.suppress(OSError):
                with open(os.path.join(world["folder"], f"rank{i}", "setup_error.txt"), encoding="utf-8") as fh:
                    failed.append({"observer": "spawn", "hook": f"setting up spawned process {i}", "traceback": fh.read()})
    if failed:
        return {**parent, "observer_errors": [*(parent.get("observer_errors") or []), *failed[:2]]}
    return None
