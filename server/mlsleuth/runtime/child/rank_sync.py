"""What one rank of a multi-process (DDP/FSDP) run measures for the cross-rank checks.

Runs inside each rank's child (standard library and torch only). Installed by the
``trace`` and ``nan`` entry scripts when the process is one rank of a world
(``RANK``/``WORLD_SIZE`` set, by mlsleuth's own rank launcher or by torchrun/srun).

:class:`RankObserver` (observer name ``"ranks"``) records, per rank:

* ``params``: per-parameter sums (float64) of the primary optimizer's parameters before
  the first update (after the model was wrapped) and after the last watched step;
* ``grads``: per-parameter gradient sums right before each of the first few updates
  (after backward, so after DDP's gradient all-reduce);
* ``samplers``: for every ``DistributedSampler`` iterated, the epoch it reported and a
  digest and head of the index order (one entry per ``iter()``, i.e. per epoch);
* ``wrappers``: which data-parallel wrappers were built (DDP, FSDP) and whether the
  parameters are sharded (then parameters legitimately differ across ranks);
* ``stop``: a peer asked every rank to stop (the ``nan`` tool's first non-finite value).

and arms two ways to see where a rank hangs:

* ``faulthandler`` on ``SIGUSR1`` writes every thread's stack to ``MLSLEUTH_STACKS``
  (the rank launcher sends it before it kills a rank that did not finish);
* a daemon thread that, shortly before the run's timeout, writes the rank's result
  with ``status: "hang"``, its step count, and its main thread's Python stack (for a
  rank started by torchrun, whose parent only reads the result file).
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import sys
import threading
import time
import traceback
from typing import Any

import channel
from observer import Observer

STACKS_ENV = "MLSLEUTH_STACKS"  # where faulthandler writes the stacks on SIGUSR1
STOP_ENV = "MLSLEUTH_STOP_FILE"  # appears when a peer rank asks everyone to stop
HANG_AT_ENV = "MLSLEUTH_HANG_AT"  # epoch seconds at which the hang watchdog writes the result
GRAD_STEPS = 4  # steps whose gradient sums are recorded
MAX_PARAMS = 256  # parameters whose sums are recorded (the first ones, in optimizer order)
MAX_SAMPLER_EPOCHS = 8
SAMPLER_HEAD = 16
STACK_FRAMES = 40


def world() -> tuple[int, int] | None:
    """``(rank, world_size)`` from the launcher's environment (torchrun, srun), or None."""
    for rank_key, size_key in (("RANK", "WORLD_SIZE"), ("SLURM_PROCID", "SLURM_NTASKS")):
        rank, size = os.environ.get(rank_key), os.environ.get(size_key)
        if rank is not None and size is not None and rank.isdigit() and size.isdigit():
            return int(rank), int(size)
    return None


def _sums(tensors: list[Any]) -> list[float | None]:
    import torch

    out: list[float | None] = []
    with torch.no_grad():
        for t in tensors[:MAX_PARAMS]:
            if t is None:
                out.append(None)
                continue
            try:
                local = getattr(t, "to_local", None)  # a DTensor: its local shard
                data = local() if callable(local) else t
                out.append(float(data.detach().double().sum().item()))
            except Exception:  # noqa: BLE001 - a parameter we cannot read is simply not compared
                out.append(None)
    return out


def shard_key(tensor: Any, rank: int, *, fsdp1: bool = False) -> str | None:
    """Which piece of a parameter this rank holds: None when every rank holds all of it (a DDP replica);
    for a DTensor (FSDP2, HSDP, tensor parallel) the rank's coordinates on the mesh dimensions where it is
    not replicated, so ranks with equal keys hold the same piece and must agree (HSDP replicas); for an
    FSDP1 flat parameter a key of its own (which ranks replicate a hybrid-sharded piece is not worked out)."""
    placements, mesh = getattr(tensor, "placements", None), getattr(tensor, "device_mesh", None)
    if placements is not None and mesh is not None:
        try:
            coord = mesh.get_coordinate()
            if coord is None:
                return f"outside-mesh:{rank}"
            held = [f"{i}={coord[i]}" for i, pl in enumerate(placements) if not pl.is_replicate()]
        except Exception:  # noqa: BLE001 - an unknown layout: never compared
            return f"unknown:{rank}"
        return ",".join(held) or None
    if fsdp1 or hasattr(tensor, "_sharded_size"):  # FSDP1: flat shards, or views into them (use_orig_params)
        return f"flat:{rank}"
    return None


def leave_if_rank() -> None:
    """After a rank wrote its result: end the process now. Tearing down a process group at interpreter exit can
    block forever when a peer is gone or stuck (and a peer stuck in a collective is freed by this exit)."""
    if world() is None:
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


def empty_shard(tensor: Any) -> bool:
    """Whether ``tensor`` is a sharded parameter (DTensor) of which this rank holds no element."""
    local = getattr(tensor, "to_local", None)
    if not callable(local):
        return False
    try:
        return local().numel() == 0
    except Exception:  # noqa: BLE001 - not a DTensor after all
        return False


def frames_of(frame: Any) -> list[dict[str, Any]]:
    """The stack of ``frame``, outermost first, as ``{"file", "line", "function", "code"}``."""
    out = []
    for summary in traceback.extract_stack(frame)[-STACK_FRAMES:]:
        out.append({"file": summary.filename, "line": summary.lineno, "function": summary.name, "code": (summary.line or "").strip()[:200]})
    return out


def free_rendezvous() -> dict[str, str] | None:
    """Environment for re-running this script alone in a fresh process: ``{}`` outside a world, a fresh
    ``MASTER_PORT`` at world size 1 (after leaving the process group, whose store holds the old port),
    None for a rank of a larger world (it cannot rendezvous alone)."""
    found = world()
    if found is None:
        return {}
    if found[1] != 1:
        return None
    with contextlib.suppress(Exception):
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            dist.destroy_process_group()
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # a rank under torchrun joins the agent's store; the lone replay must host its own
    return {"MASTER_PORT": str(port), "MASTER_ADDR": os.environ.get("MASTER_ADDR", "127.0.0.1"), "TORCHELASTIC_USE_AGENT_STORE": "False"}


class RankObserver(Observer):
    name = "ranks"

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        spawned = (config.get("spawned_rank"), config.get("spawned_world_size"))  # a rank the script spawned (trace_spawn)
        rank_world = world() or (spawned if all(isinstance(v, int) for v in spawned) else (0, 1))
        self.rank, self.world_size = rank_world
        self.params: dict[str, list[float | None]] = {}
        self.grads: dict[str, list[float | None]] = {}
        self.param_names: list[str] = []
        self.shard_keys: list[str | None] = []  # per parameter: which piece this rank holds (see shard_key)
        self.samplers: list[dict[str, Any]] = []
        self._sampler_ids: dict[int, int] = {}
        self.wrappers: list[str] = []
        self.sharded = False
        self.process_group: bool | None = None  # whether the script had joined a process group by its first step
        self.stopped_by_peer = False
        self.runner: Any = None
        self._stop_file = os.environ.get(STOP_ENV)
        self._stack_file: Any = None
        self._done = threading.Event()
        self.patches = self._patches()

    # -- patches: wrapper construction and sampler order --------------------------------------------
    def _patches(self) -> list[tuple[Any, str, Any]]:
        patches: list[tuple[Any, str, Any]] = []
        with contextlib.suppress(Exception):
            from torch.utils.data.distributed import DistributedSampler

            patches.append((DistributedSampler, "__iter__", self._wrap_sampler_iter))
        with contextlib.suppress(Exception):
            from torch.nn.parallel import DistributedDataParallel

            patches.append((DistributedDataParallel, "__init__", self._wrap_init("DistributedDataParallel")))
        with contextlib.suppress(Exception):
            from torch.distributed.fsdp import FullyShardedDataParallel

            patches.append((FullyShardedDataParallel, "__init__", self._wrap_init("FullyShardedDataParallel", sharded=True)))
        return patches

    def _wrap_init(self, label: str, sharded: bool = False):
        observer = self

        def factory(runner: Any, original: Any):
            def init(module, *args, **kwargs):
                original(module, *args, **kwargs)
                if label not in observer.wrappers:
                    observer.wrappers.append(label)
                if sharded:
                    observer.sharded = True

            return init

        return factory

    def _wrap_sampler_iter(self, runner: Any, original: Any):
        observer = self

        def sampler_iter(sampler):
            indices = list(original(sampler))
            if not runner._muted:  # an observer's own pass over the sampler is not an epoch of the run
                with contextlib.suppress(Exception):
                    observer._note_sampler(sampler, indices)
            return iter(indices)

        return sampler_iter

    def _note_sampler(self, sampler: Any, indices: list[int]) -> None:
        key = self._sampler_ids.setdefault(id(sampler), len(self._sampler_ids))
        if key >= 4:
            return
        while len(self.samplers) <= key:
            self.samplers.append({"shuffle": bool(getattr(sampler, "shuffle", False)), "epochs": []})
        epochs = self.samplers[key]["epochs"]
        if len(epochs) < MAX_SAMPLER_EPOCHS:
            flat = [int(i) for i in indices]
            epochs.append({"epoch": int(getattr(sampler, "epoch", -1)), "n": len(flat), "digest": hash(tuple(flat)) & 0xFFFFFFFFFFFF,
                           "head": flat[:SAMPLER_HEAD], "step": self.runner.step if self.runner is not None else None})

    # -- hooks ----------------------------------------------------------------------------------------
    def on_start(self, runner: Any) -> None:
        self.runner = runner
        path = os.environ.get(STACKS_ENV)
        if path and hasattr(signal, "SIGUSR1"):
            with contextlib.suppress(Exception):
                self._stack_file = open(path, "w", encoding="utf-8")  # noqa: SIM115 - kept open for faulthandler
                faulthandler.register(signal.SIGUSR1, file=self._stack_file, all_threads=True)
        hang_at = os.environ.get(HANG_AT_ENV)
        delay = None
        if hang_at:
            with contextlib.suppress(ValueError):
                delay = float(hang_at) - time.time()
        elif self.config.get("hang_dump_after_s"):
            delay = float(self.config["hang_dump_after_s"])
        if delay is not None and delay > 0:
            threading.Thread(target=self._watch_hang, args=(delay, threading.main_thread()), name="mlsleuth-hang-watch", daemon=True).start()

    def _params(self, optimizer: Any) -> list[Any]:
        try:
            return [p for g in optimizer.param_groups for p in g["params"]]
        except (AttributeError, KeyError, TypeError):
            return []

    def on_step_start(self, runner: Any, optimizer: Any) -> None:
        if optimizer is not runner.primary_optimizer:
            return
        params = self._params(optimizer)
        if not self.param_names:
            names = {}
            for root in runner.roots:
                with contextlib.suppress(Exception):
                    names.update(runner.param_names(root))
            self.param_names = [names.get(id(p), f"param{i}") for i, p in enumerate(params[:MAX_PARAMS])]
            self.sharded = self.sharded or any(type(p).__name__ == "DTensor" or hasattr(p, "_sharded_size") for p in params)
            fsdp1 = "FullyShardedDataParallel" in self.wrappers
            self.shard_keys = [shard_key(p, self.rank, fsdp1=fsdp1) for p in params[:MAX_PARAMS]]
        step = runner.step
        if step == 0:
            self.params["0"] = _sums(params)
            with contextlib.suppress(Exception):
                import torch.distributed as dist

                self.process_group = bool(dist.is_available() and dist.is_initialized())
        if step < GRAD_STEPS:
            self.grads[str(step)] = _sums([p.grad for p in params])
        self._check_stop(runner)

    def on_step_end(self, runner: Any, optimizer: Any) -> None:
        if optimizer is runner.primary_optimizer:
            self._last = (runner.step, optimizer)
            self._check_stop(runner)

    def on_end(self, runner: Any, reason: str) -> None:
        self._done.set()
        last = getattr(self, "_last", None)
        if last is not None:
            self.params[str(last[0])] = _sums(self._params(last[1]))

    def _check_stop(self, runner: Any) -> None:
        if self._stop_file and os.path.exists(self._stop_file):
            self.stopped_by_peer = True
            runner.request_stop("stopped-by-peer")

    # -- the hang watchdog ------------------------------------------------------------------------------
    def _watch_hang(self, delay: float, main: threading.Thread) -> None:
        if self._done.wait(delay) or not main.is_alive():
            return
        frame = sys._current_frames().get(main.ident)
        steps = self.runner.step if self.runner is not None else 0
        payload = {"status": "hang", "steps": steps, "last_good_step": steps - 1 if steps else None, "exception": None,
                   "exit_code": None, "observers": {"ranks": self.result()}, "observer_errors": [],
                   "hang": {"frames": frames_of(frame) if frame is not None else [], "seconds": round(delay, 1)},
                   "config": self.config}
        with contextlib.suppress(Exception):
            if not self._done.is_set():
                channel.write_result(payload)

    def result(self) -> dict[str, Any]:
        return {"rank": self.rank, "world_size": self.world_size, "params": dict(self.params), "grads": dict(self.grads),
                "param_names": list(self.param_names), "samplers": list(self.samplers), "wrappers": list(self.wrappers),
                "sharded": self.sharded, "shard_keys": list(self.shard_keys), "process_group": self.process_group, "stopped_by_peer": self.stopped_by_peer,
                "steps": self.runner.step if self.runner is not None else 0}
