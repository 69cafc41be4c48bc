"""Start N ranks of a script on this machine, like ``torchrun --nproc-per-node N`` (standard library only).

An entry script (``trace_main``, ``nan_main``) calls :func:`launch_if_asked` first: when its
config holds ``nproc_per_node`` and this process is not itself a rank, it becomes the
launcher. Each rank is the same entry script started again with ``RANK``, ``LOCAL_RANK``,
``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``, ``MASTER_ADDR`` and ``MASTER_PORT`` (a free port), its own
result, step and output files, in this process's group: the parent's timeout, cancel and
watchdog (mlsleuth's process runner) kill every rank with the launcher.

The launcher stops the world before the parent's timeout (so that it can still report),
asks every rank that did not finish for its stacks (``SIGUSR1``, see ``rank_sync``) before
killing it, stops the other ranks a short while after one rank ended badly (they would wait
in a collective for it), and for ``nan`` stops every rank once one found a non-finite value
and then replays the world on a fresh port with the locator armed (``replay_step``).

Its result is ``{"status": "ranks", "world_size", "ranks": [per rank], "replay": [per rank] | None}``
where each rank entry holds ``rank``, ``returncode``, ``result`` (the rank's own payload or
None), ``last_step``, ``ended`` ("exited" / "killed"), ``why_killed``, ``stacks`` (faulthandler
text) and the tails of its stdout and stderr.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from typing import Any

import channel

RANK_CHILD_ENV = "MLSLEUTH_RANK_CHILD"
STACKS_ENV = "MLSLEUTH_STACKS"
STOP_ENV = "MLSLEUTH_STOP_FILE"
HANG_AT_ENV = "MLSLEUTH_HANG_AT"
PEER_GRACE_S = 8.0  # after one rank ended badly, how long the others may take to end on their own
NAN_GRACE_S = 3.0  # after one rank found a non-finite value, how long the others may take to stop
STACK_WAIT_S = 0.7
LINGER_S = 3.0  # a rank that wrote its result may take this long to exit
TAIL = 4000
POLL_S = 0.1


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def margins(timeout_s: float) -> tuple[float, float]:
    """Seconds before the parent's timeout at which the ranks write their hang result, and the launcher stops them."""
    rank_margin = min(max(0.15 * timeout_s, 3.0), 20.0)
    return rank_margin, rank_margin / 2


def launch_if_asked(entry: str) -> bool:
    """Run as the launcher when the config asks for ranks and this is not a rank; True when it did."""
    if os.environ.get(RANK_CHILD_ENV) or len(sys.argv) < 2:
        return False
    try:
        with open(sys.argv[1], encoding="utf-8") as fh:
            config = json.load(fh)
    except (OSError, ValueError):
        return False
    nproc = config.get("nproc_per_node")
    if not isinstance(nproc, int) or nproc < 1:
        return False
    channel.write_result(run_world_and_replay(config, entry))
    return True


def _write_config(folder: str, config: dict[str, Any]) -> str:
    path = os.path.join(folder, "config.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(config, fh)
    return path


def _read_json(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as fh:
            value = json.load(fh)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _tail(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - TAIL))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _step(path: str) -> int | None:
    try:
        text = open(path, "rb").read(64).decode("ascii").strip()  # noqa: SIM115 - tiny file
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


class Rank:
    def __init__(self, rank: int, folder: str, proc: subprocess.Popen) -> None:
        self.rank = rank
        self.folder = folder
        self.proc = proc
        self.started = time.monotonic()
        self.ended_at: float | None = None
        self.why_killed: str | None = None
        self.lingering = False  # wrote its result, process still running
        self.noted = False
        self.saved_result: dict[str, Any] | None = None  # what the rank had written when it was stopped
        self.port: int | None = None  # the world's rendezvous port (MASTER_PORT)

    def path(self, name: str) -> str:
        return os.path.join(self.folder, name)

    def result(self) -> dict[str, Any] | None:
        return _read_json(self.path("result.json"))

    def stop(self, why: str) -> None:
        stop_ranks([self], why)

    def entry(self) -> dict[str, Any]:
        stacks = None
        try:
            with open(self.path("stacks.txt"), encoding="utf-8", errors="replace") as fh:
                stacks = fh.read()[-20000:] or None
        except OSError:
            pass
        result = self.saved_result if self.saved_result is not None else self.result()
        return {"rank": self.rank, "returncode": self.proc.returncode, "result": result, "last_step": _step(self.path("step")),
                "ended": "lingered" if self.lingering and self.why_killed else ("killed" if self.why_killed else "exited"), "why_killed": self.why_killed, "stacks": stacks,
                "port": self.port,
                "duration_s": round((self.ended_at or time.monotonic()) - self.started, 3),
                "stdout_tail": _tail(self.path("stdout.txt")), "stderr_tail": _tail(self.path("stderr.txt"))}


def stop_ranks(ranks: list[Rank], why: str) -> None:
    """Ask every rank for its stacks (SIGUSR1) first, keep what each had written, then end them all.

    All at once: killing one rank makes its peers' collectives fail, and their stack and result
    would then show that failure instead of where they were stuck."""
    ranks = [r for r in ranks if r.proc.poll() is None]
    if not ranks:
        return
    for r in ranks:
        r.why_killed = why
    for sig, wait in ((getattr(signal, "SIGUSR1", None), STACK_WAIT_S), (signal.SIGTERM, 1.0), (signal.SIGKILL, 2.0)):
        if sig is None:
            continue
        for r in ranks:
            if r.proc.poll() is None:
                try:
                    r.proc.send_signal(sig)
                except OSError:
                    pass
        end = time.monotonic() + wait
        while time.monotonic() < end and any(r.proc.poll() is None for r in ranks):
            time.sleep(0.05)
        if sig == getattr(signal, "SIGUSR1", None):
            for r in ranks:
                r.saved_result = r.result()
        if all(r.proc.poll() is not None for r in ranks):
            return


def start_world(config: dict[str, Any], entry: str, nproc: int, folder: str, hang_at: float, *, progress: bool) -> list[Rank]:
    os.makedirs(folder, exist_ok=True)
    port = free_port()
    stop_file = os.path.join(folder, "stop")
    ranks = []
    for rank in range(nproc):
        sub = os.path.join(folder, f"rank{rank}")
        os.makedirs(sub, exist_ok=True)
        own = dict(config)
        if own.get("save_dir") and nproc > 1:  # each rank's saved batch and snapshot in its own folder
            own["save_dir"] = os.path.join(own["save_dir"], f"rank{rank}")
        cfg_path = _write_config(sub, own)
        env = dict(os.environ)
        env.update({"RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(nproc), "LOCAL_WORLD_SIZE": str(nproc),
                    "GROUP_RANK": "0", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), RANK_CHILD_ENV: "1",
                    channel.RESULT_ENV: os.path.join(sub, "result.json"), channel.STEP_ENV: os.path.join(sub, "step"),
                    STACKS_ENV: os.path.join(sub, "stacks.txt"), STOP_ENV: stop_file, HANG_AT_ENV: f"{hang_at:.3f}"})
        if rank != 0 or not progress:
            env.pop(channel.PROGRESS_ENV, None)
        with open(os.path.join(sub, "stdout.txt"), "ab") as out, open(os.path.join(sub, "stderr.txt"), "ab") as err:
            # same process group as the launcher: the parent's group kill reaches every rank
            proc = subprocess.Popen([sys.executable, entry, cfg_path], env=env, cwd=os.getcwd(), stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=err, close_fds=True)
        ranks.append(Rank(rank, sub, proc))
        ranks[-1].port = port
    return ranks


FINAL = ("finished", "max-steps", "non-finite", "stopped-by-peer", "exception", "exit", "harness-error")


def wait_world(ranks: list[Rank], deadline: float, *, nan: bool) -> None:
    """Wait for every rank; stop the rest after one ended badly, after a non-finite value, or at the deadline.

    A rank whose result says it ended counts as ended even while its process lingers (a process
    group torn down at interpreter exit can block forever); it is stopped after ``LINGER_S``.
    """
    trouble_at: float | None = None
    trouble = ""
    grace = PEER_GRACE_S
    stop_file = os.path.join(os.path.dirname(ranks[0].folder), "stop")
    last_look = 0.0
    while True:
        now = time.monotonic()
        if now - last_look >= 0.5:  # results of ranks still running: did one end without exiting?
            last_look = now
            for r in ranks:
                if r.ended_at is None and r.proc.poll() is None and ((r.result() or {}).get("status") in FINAL):
                    r.ended_at = now
                    r.lingering = True
        for r in ranks:
            if r.lingering and r.proc.poll() is None and now - (r.ended_at or now) >= LINGER_S:
                r.stop(f"it wrote its result but its process did not exit within {LINGER_S:.0f}s (stuck at interpreter exit)")
        live = [r for r in ranks if r.proc.poll() is None]
        running = [r for r in live if not r.lingering]
        for r in ranks:
            if r.noted or (r.ended_at is None and r.proc.poll() is None):
                continue
            r.noted = True
            if r.ended_at is None:
                r.ended_at = now
            if trouble_at is not None:
                continue
            status = (r.result() or {}).get("status")
            if nan and status == "non-finite":
                trouble_at, grace = now, NAN_GRACE_S
                trouble = f"rank {r.rank} found a non-finite value"
                with open(stop_file, "w", encoding="utf-8") as fh:
                    fh.write(str(r.rank))
            elif status not in ("finished", "max-steps", "non-finite", "stopped-by-peer") and any(x is not r for x in running):
                trouble_at, grace = now, PEER_GRACE_S
                trouble = f"rank {r.rank} ended ({status or 'without a result'}) while this rank still ran"
        if not live:
            return
        if now >= deadline:
            stop_ranks(running, "the run's timeout was reached while this rank still ran")
            stop_ranks(live, "it wrote its result but its process did not exit (stuck at interpreter exit)")
            return
        if trouble_at is not None and now - trouble_at >= grace:
            stop_ranks(running, f"{trouble}; this rank did not end within {grace:.0f}s (probably waiting in a collective for it)")
            stop_ranks(live, "it wrote its result but its process did not exit (stuck at interpreter exit)")
            return
        time.sleep(POLL_S)


def run_world_and_replay(config: dict[str, Any], entry: str) -> dict[str, Any]:
    nproc = int(config["nproc_per_node"])
    timeout = float(config.get("timeout_s") or 300.0)
    rank_margin, launch_margin = margins(timeout)
    started_wall, started = time.time(), time.monotonic()
    deadline = started + timeout - launch_margin
    scratch = os.path.dirname(os.environ.get(channel.RESULT_ENV, "")) or os.getcwd()
    nan = config.get("tool") == "nan"
    rank_config = {**config, "nproc_per_node": None}
    if nan:
        rank_config["replay"] = False  # the launcher replays the whole world itself
    channel.progress(f"starting {nproc} rank(s)", force=True)
    ranks = start_world(rank_config, entry, nproc, os.path.join(scratch, "world"), started_wall + timeout - rank_margin, progress=True)
    wait_world(ranks, deadline, nan=nan)
    entries = [r.entry() for r in ranks]
    payload: dict[str, Any] = {"status": "ranks", "world_size": nproc, "ranks": entries, "replay": None, "config": config,
                               "steps": max((e["last_step"] or 0 for e in entries), default=0)}
    if nan and config.get("replay", True):
        failing = first_failure(entries)
        if failing is not None:
            payload["failing_rank"] = failing
            payload["replay"] = replay_world(config, entries, failing, entry, nproc, scratch, started, timeout)
    return payload


def first_failure(entries: list[dict[str, Any]]) -> int | None:
    """The rank whose non-finite value came first: the lowest step, then the earliest part of that step (a
    value born in one rank's forward reaches the others only through the gradient all-reduce in backward)."""
    order = {"data": 0, "forward": 1, "loss": 2, "backward": 3, "optimizer": 4}
    found = []
    for e in entries:
        failure = (((e.get("result") or {}).get("observers") or {}).get("nan") or {}).get("failure")
        if failure and isinstance(failure.get("step"), int):
            found.append((failure["step"], order.get(failure.get("phase"), 5), e["rank"]))
    return min(found)[2] if found else None


def replay_world(config: dict[str, Any], entries: list[dict[str, Any]], failing: int, entry: str, nproc: int, scratch: str,
                 started: float, timeout: float) -> list[dict[str, Any]] | None:
    """Run every rank again on a fresh port up to the failing step, the locator armed there (``nan`` only)."""
    failure = ((entries[failing]["result"] or {}).get("observers") or {}).get("nan", {}).get("failure") or {}
    step = failure.get("step")
    remaining = started + timeout - time.monotonic()
    rank_margin, launch_margin = margins(timeout)
    if not isinstance(step, int) or remaining < 2 * rank_margin:
        return None
    channel.progress(f"replaying step {step} on every rank, the locator armed on rank {failing}", step=step, replay=True, force=True)
    expected = ((entries[failing]["result"] or {}).get("observers") or {}).get("nan", {}).get("fingerprints") or {}
    cfg = {**config, "nproc_per_node": None, "replay": False, "replay_step": step, "max_steps": step + 1, "expected": expected,
           "save_dir": None, "snapshot_every": 0, "copy_batches": False, "expected_rank": failing}
    ranks = start_world(cfg, entry, nproc, os.path.join(scratch, "replay"), time.time() + remaining - rank_margin, progress=False)
    wait_world(ranks, time.monotonic() + remaining - launch_margin, nan=True)
    return [r.entry() for r in ranks]
