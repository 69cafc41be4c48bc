"""Cross-rank checks of ``mlsleuth trace`` on a multi-process run (``--nproc-per-node N`` or torchrun).

Each check reads every rank's ``ranks`` observer data (``runtime/child/rank_sync.py``) through a
:class:`RanksRun` and compares the ranks. On a single-process run (a :class:`TraceRun`) they find
nothing; :func:`mlsleuth.runtime.multirank.build_ranks_report` runs them on the merged world.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from functools import cached_property
from typing import Any

from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.common import decode_non_finite
from mlsleuth.runtime.registry import Found, runtime_check

HARNESS_FILES = {"run_user_script.py", "trace_main.py", "nan_main.py", "rank_sync.py"}
RANK_CHECK_IDS = ("ddp-params-differ-across-ranks", "ddp-grads-differ-across-ranks", "ddp-sampler-same-order-each-epoch", "ddp-rank-hung",
                  "ddp-metric-of-one-shard-reported", "ddp-grads-summed-not-averaged")


class RanksRun:
    """Every rank of one run: ``entries`` are the rank launcher's per-rank entries (``rank``, ``result``,
    ``last_step``, ``ended``, ``why_killed``, ``stacks``)."""

    def __init__(self, entries: list[dict[str, Any]], *, world_size: int, path: str | None, command: str, script_dir: str | None = None) -> None:
        self.entries = sorted(entries, key=lambda e: e.get("rank", 0))
        self.world_size = world_size
        self.path = path
        self.command = command
        self.script_dir = script_dir

    def location_defaults(self) -> dict[str, Any]:
        return {"path": self.path}

    @cached_property
    def data(self) -> dict[int, dict[str, Any]]:
        """``{rank: the ranks observer's data}`` for the ranks that reported it."""
        out = {}
        for e in self.entries:
            obs = ((e.get("result") or {}).get("observers") or {}).get("ranks")
            if isinstance(obs, dict):
                out[int(e["rank"])] = decode_non_finite(obs)
        return out

    def observer(self, name: str) -> dict[int, dict[str, Any]]:
        """``{rank: that observer's data}`` for the ranks that reported it (e.g. ``"grad_sync"``)."""
        out = {}
        for e in self.entries:
            obs = ((e.get("result") or {}).get("observers") or {}).get(name)
            if isinstance(obs, dict):
                out[int(e["rank"])] = decode_non_finite(obs)
        return out

    @cached_property
    def sharded(self) -> bool:
        return any(d.get("sharded") for d in self.data.values())

    def steps_of(self, entry: dict[str, Any]) -> int:
        result = entry.get("result") or {}
        known = [v for v in (result.get("steps"), entry.get("last_step")) if isinstance(v, int)]
        return max(known, default=0)


def is_multirank(run: Any) -> bool:
    """A world whose ranks can be compared: several ranks reported, and they joined a process group (a script
    that never calls init_process_group runs N independent copies, which may well differ)."""
    return (isinstance(run, RanksRun) and run.world_size > 1 and len(run.data) > 1
            and not any(d.get("process_group") is False for d in run.data.values()))


def values_differ(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return False
    if not (math.isfinite(a) and math.isfinite(b)):
        return (math.isnan(a) != math.isnan(b)) or (not math.isnan(a) and a != b)
    return abs(a - b) > T.RANK_SUM_RTOL * max(abs(a), abs(b), 1e-12)


def _groups(run: RanksRun, ranks: list[int], index: int) -> list[list[int]]:
    """The ranks that must hold equal values of parameter ``index``: all of them for a replicated (DDP)
    parameter; for a sharded one, those that hold the same piece (``shard_keys``: HSDP replicas)."""
    by_key: dict[Any, list[int]] = {}
    for r in ranks:
        keys = run.data[r].get("shard_keys")
        if keys is None and run.sharded:  # written by an mlsleuth that did not record the pieces: never compared
            keys = [f"unknown:{r}"] * (index + 1)
        keys = keys or []
        by_key.setdefault(keys[index] if index < len(keys) else None, []).append(r)
    return [members for members in by_key.values() if len(members) > 1]


def _compare(run: RanksRun, kind: str, key: str) -> tuple[list[str], list[int], dict[int, list]]:
    """Parameter names whose ``kind`` (params/grads) sums at ``key`` differ between ranks that must agree, and on which
    ranks (each compared with the lowest rank of its group)."""
    sums = {r: (d.get(kind) or {}).get(key) for r, d in run.data.items()}
    sums = {r: s for r, s in sums.items() if isinstance(s, list)}
    if len(sums) < 2:
        return [], [], sums
    base_rank = min(sums)
    base = sums[base_rank]
    names = run.data[base_rank].get("param_names") or []
    same_length = sorted(r for r, s in sums.items() if len(s) == len(base))
    differing: set[int] = set()
    ranks: set[int] = set()
    for i in range(len(base)):
        for members in _groups(run, same_length, i):
            for r in members[1:]:
                if values_differ(sums[members[0]][i], sums[r][i]):
                    differing.add(i)
                    ranks.add(r)
    labels = [names[i] if i < len(names) else f"param{i}" for i in sorted(differing)]
    return labels, sorted(ranks), sums


def comparison_note(run: RanksRun) -> str | None:
    """For a sharded model, what the parameter and gradient comparisons covered (None for a replicated one)."""
    if not is_multirank(run) or not run.sharded:
        return None
    ranks = sorted(run.data)
    n = max((len(run.data[r].get("param_names") or []) for r in ranks), default=0)
    compared = sum(1 for i in range(n) if _groups(run, ranks, i))
    if compared == 0:
        return ("parameter and gradient sums were not compared across ranks: the model is sharded (FSDP/DTensor) and no "
                "two ranks hold the same piece of any parameter, so there is no replica to compare")
    return (f"sharded model: {compared} of {n} parameters compared between the ranks that hold the same piece "
            "(replicas, as in HSDP)" + ("; the others are held by one rank each" if compared < n else ""))


def _names(labels: list[str]) -> str:
    shown = ", ".join(labels[:4])
    return shown + (f" and {len(labels) - 4} more" if len(labels) > 4 else "")


@runtime_check("ddp-params-differ-across-ranks", tool="trace", category="distributed", severity="error")
def ddp_params_differ_across_ranks(run: Any) -> Iterator[Found]:
    """The ranks of a data-parallel run hold different parameter values (a desync).

    What it finds: per-parameter sums that differ between ranks (by more than a relative
    {T.RANK_SUM_RTOL:g}) right before the first optimizer update, after the model was built and
    wrapped, or after the last watched step while the gradients were in sync. In a sharded model
    (FSDP, DTensor) only ranks that hold the same piece of a parameter are compared (HSDP replicas);
    the report's `cross_rank_comparison` says what was covered.
    Why it matters: data parallelism assumes every rank trains one model; ranks that start from
    different weights (a rank-dependent seed before building the model, manual gradient averaging
    without a broadcast of the initial weights, a model changed on one rank after wrapping) train
    different models whose averaged gradients fit none of them, and the checkpoint of rank 0 is not
    what the other ranks evaluated. Nothing errors.
    How to confirm: print `sum(p.double().sum() for p in model.parameters())` on every rank right
    after building the model and after a few steps; the numbers must be identical.
    What to do instead: seed identically on every rank before building the model (use a
    rank-dependent seed only for data augmentation, after), wrap the model in
    DistributedDataParallel (it broadcasts rank 0's weights), or broadcast them yourself with
    `dist.broadcast(p.data, src=0)` for every parameter and buffer.
    """
    if not is_multirank(run):
        return
    labels, ranks, sums = _compare(run, "params", "0")
    when = "before the first update"
    if not labels:
        ends = {r: max((int(k) for k in (d.get("params") or {}) if k.isdigit()), default=0) for r, d in run.data.items()}
        last = min(ends.values(), default=0)
        if last <= 0 or len(set(ends.values())) != 1:
            return
        grads_differ = any(_compare(run, "grads", k)[0] for k in ("0", "1", "2", "3"))
        if grads_differ:
            return  # the gradient check names the cause
        labels, ranks, sums = _compare(run, "params", str(last))
        when = f"after step {last}"
        if not labels:
            return
    n = len(next(iter(sums.values())))
    wrappers = sorted({w for d in run.data.values() for w in d.get("wrappers") or []})
    if run.sharded:
        built = "the model is sharded (FSDP/DTensor): compared between the ranks that hold the same piece (replicas)"
        fix = ("Seed every rank identically before building the model, or broadcast the initial weights from rank 0: "
               "fully_shard/HSDP does not broadcast them the way DistributedDataParallel does.")
    else:
        built = f"wrappers built: {', '.join(wrappers)}" if wrappers else "no DistributedDataParallel/FSDP wrapper was built"
        fix = ("Seed every rank identically before building the model, or wrap it in DistributedDataParallel "
               "(it broadcasts rank 0's weights), or broadcast each parameter from rank 0 before training.")
    yield Found(
        f"the ranks train different weights: {len(labels)} of {n} parameters differ between rank 0 and rank(s) "
        f"{', '.join(map(str, ranks))} {when}",
        observation=f"per-parameter sums {when} differ across ranks for {_names(labels)}; {built}",
        measurements={"parameters": labels[:20], "ranks": ranks, "when": when, "wrappers": wrappers},
        next_test="Print sum(p.double().sum() for p in model.parameters()) on every rank right after building the model; "
                  f"the values must match. Then rerun `{run.command}`.",
        fix=fix,
        phase="setup" if when.startswith("before") else "optimizer",
    )


@runtime_check("ddp-grads-differ-across-ranks", tool="trace", category="distributed", severity="error")
def ddp_grads_differ_across_ranks(run: Any) -> Iterator[Found]:
    """Gradient synchronisation was lost: after backward, the ranks hold different gradients.

    What it finds: per-parameter gradient sums, read right before an optimizer update, that differ
    between ranks (by more than a relative {T.RANK_SUM_RTOL:g}) in a data-parallel run.
    Why it matters: DistributedDataParallel averages gradients inside backward, so every rank applies
    the same update; gradients that differ mean the average did not happen: `no_sync()` left on for the
    step that updates, the loss computed through `model.module` (or another method of the inner model)
    which bypasses DDP's hooks, or a hand-written all-reduce that misses some parameters. Each rank
    then trains on its shard alone and the replicas drift apart silently.
    In a sharded model (FSDP, DTensor) only ranks that hold the same piece of a parameter are
    compared (HSDP replicas).
    How to confirm: after `loss.backward()`, print one gradient's sum on every rank; with DDP the
    values are identical.
    What to do instead: call the DDP wrapper itself (`model(x)`, not `model.module(x)` or
    `model.module.some_method(x)`), leave `no_sync()` only around the accumulation micro-steps that do
    not call `optimizer.step()`, or all-reduce every gradient before the step.
    """
    if not is_multirank(run):
        return
    for key in sorted({k for d in run.data.values() for k in (d.get("grads") or {})}, key=int):
        labels, ranks, sums = _compare(run, "grads", key)
        if not labels:
            continue
        n = len(next(iter(sums.values())))
        wrappers = sorted({w for d in run.data.values() for w in d.get("wrappers") or []})
        hint = ("a DistributedDataParallel wrapper was built, so its gradient all-reduce did not run for this step "
                "(the forward bypassed the wrapper, or no_sync() was active)" if "DistributedDataParallel" in wrappers
                else "no DistributedDataParallel wrapper was built")
        yield Found(
            f"gradients are not synchronised across ranks: {len(labels)} of {n} parameters had different gradients on "
            f"rank 0 and rank(s) {', '.join(map(str, ranks))} before update {key}",
            observation=f"per-parameter gradient sums before optimizer step {key} differ for {_names(labels)}; {hint}",
            measurements={"parameters": labels[:20], "ranks": ranks, "step": int(key), "wrappers": wrappers},
            next_test="Print a gradient's sum on every rank after loss.backward(); with DistributedDataParallel the values are "
                      f"identical. Then rerun `{run.command}`.",
            fix="Compute the loss through the DDP wrapper (model(x), not model.module(x)); keep no_sync() off the step that "
                "calls optimizer.step(); or all-reduce every gradient before stepping.",
            step=int(key), phase="backward",
        )
        return


@runtime_check("ddp-sampler-same-order-each-epoch", tool="trace", category="data", severity="warning")
def ddp_sampler_same_order_each_epoch(run: Any) -> Iterator[Found]:
    """A shuffling DistributedSampler gave the same index order in two epochs (`set_epoch` not called).

    What it finds: a `DistributedSampler(shuffle=True)` iterated at least twice with the same epoch
    number and exactly the same order of indices, observed while the script ran.
    Why it matters: DistributedSampler seeds its shuffle with `seed + epoch`; unless `set_epoch(epoch)`
    is called before each epoch, every epoch sees the batches in the same order, which hurts
    generalisation and makes the loss curve look smoother than the data allows. Nothing errors.
    How to confirm: print `list(sampler)[:5]` at the start of two epochs.
    What to do instead: call `sampler.set_epoch(epoch)` at the top of every epoch, before iterating the
    data loader.
    """
    if not isinstance(run, RanksRun):
        return
    seen: list[tuple[int, int, dict[str, Any], int]] = []  # (rank, sampler index, first pass, passes)
    for rank in sorted(run.data):
        for i, sampler in enumerate(run.data[rank].get("samplers") or []):
            epochs = sampler.get("epochs") or []
            if not sampler.get("shuffle") or len(epochs) < 2:
                continue
            first, second = epochs[0], epochs[1]
            if first.get("n", 0) >= 2 and first.get("digest") == second.get("digest") and first.get("epoch") == second.get("epoch"):
                seen.append((rank, i, {**first, "second_step": second.get("step")}, len(epochs)))
                break
    if not seen:
        return
    from mlsleuth.runtime.multirank import label

    rank, i, first, passes = seen[0]
    ranks = [r for r, *_ in seen]
    yield Found(
        f"[{label(ranks, run.world_size)}] the DistributedSampler repeats the same order every epoch: set_epoch() is not called",
        observation=f"sampler {i} (shuffle=True) was iterated {passes} times on rank {rank}, each time with epoch "
                    f"{first.get('epoch')}; the first two passes gave identical orders of {first.get('n')} indices "
                    f"(starting {first.get('head', [])[:6]})",
        measurements={"sampler": i, "passes": passes, "epoch": first.get("epoch"), "indices": first.get("n"), "ranks": ranks},
        next_test="Print list(sampler)[:5] at the start of two epochs; without set_epoch they are equal.",
        fix="Call sampler.set_epoch(epoch) at the start of every epoch, before iterating the DataLoader.",
        phase="data", step=first.get("second_step"),
    )


def _frames_from_faulthandler(text: str) -> list[dict[str, Any]]:
    """The main (or current) thread's frames in a faulthandler dump, outermost first."""
    blocks: list[tuple[str, list[dict[str, Any]]]] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("Thread 0x", "Current thread 0x", "Stack (most recent call first)")):
            blocks.append((stripped, []))
        elif stripped.startswith('File "') and blocks:
            try:
                file_part, rest = stripped[6:].split('", line ', 1)
                number, _, func = rest.partition(" in ")
                blocks[-1][1].append({"file": file_part, "line": int(number.split()[0]), "function": func.strip()})
            except ValueError:
                continue
    if not blocks:
        return []
    # the thread that holds the user's script: the one whose outermost frames ran it (runpy)
    chosen = next((b for b in blocks if any("runpy" in f["file"] or "run_user_script" in f["file"] for f in b[1])), blocks[0])
    return list(reversed(chosen[1]))


def rank_stack(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """Where a rank that did not finish was: its watchdog's stack, else its faulthandler dump (outermost first)."""
    frames = _frames_from_faulthandler(entry["stacks"]) if entry.get("stacks") else []
    if not frames:
        frames = ((entry.get("result") or {}).get("hang") or {}).get("frames") or []
    return frames


def _shown(run: RanksRun, frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames worth showing: from the first frame of the user's script on, without mlsleuth's own."""
    user = _user_frames(run, frames)
    if user:
        frames = frames[frames.index(user[0]):]
    return [f for f in frames if os.path.basename(str(f.get("file", ""))) not in HARNESS_FILES]


def _user_frames(run: RanksRun, frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not run.script_dir:
        return []
    root = os.path.abspath(run.script_dir) + os.sep
    return [f for f in frames if os.path.abspath(str(f.get("file", ""))).startswith(root)]


def _code(frame: dict[str, Any]) -> str:
    if frame.get("code"):
        return frame["code"]
    import linecache

    return linecache.getline(str(frame.get("file", "")), int(frame.get("line") or 0)).strip()[:200]


def _where(run: RanksRun, frame: dict[str, Any]) -> str:
    path = str(frame.get("file", ""))
    if run.script_dir:
        path = os.path.relpath(path, run.script_dir) if os.path.abspath(path).startswith(os.path.abspath(run.script_dir)) else path
    code = _code(frame)
    return f"{path}:{frame.get('line')} in {frame.get('function')}" + (f" (`{code}`)" if code else "")


@runtime_check("ddp-rank-hung", tool="trace", category="distributed", severity="error")
def ddp_rank_hung(run: Any) -> Iterator[Found]:
    """A rank never finished: stuck, most often in a collective the other ranks never reached.

    What it finds: a rank still running at the timeout, or long after another rank had ended, with the
    Python stack it was stuck in and the optimizer steps each rank completed.
    Why it matters: a collective (all_reduce, barrier, broadcast, DDP's gradient all-reduce in backward)
    waits until every rank calls it; a collective inside `if rank == 0:`, ranks with different numbers
    of batches, or a rank that skipped a step leaves the others waiting forever (NCCL's watchdog may
    kill the job after 10 to 30 minutes, without saying which line was unmatched).
    How to confirm: compare the innermost line of each rank's stack below: they should be the same
    collective; a rank stopped in a different one, or one that exited, is the culprit.
    What to do instead: call every collective on every rank (compute rank-0-only metrics outside the
    DDP model or reduce them on all ranks), give every rank the same number of batches
    (`DistributedSampler(drop_last=True)` or the `Join` context manager), and never return early on
    one rank inside the loop.
    """
    if not isinstance(run, RanksRun) or run.world_size < 2:
        return
    stuck = [e for e in run.entries if (e.get("ended") == "killed" and (e.get("result") or {}).get("status") in (None, "hang"))
             or (e.get("result") or {}).get("status") == "hang"]
    if not stuck:
        return
    parts, stacks = [], {}
    for e in run.entries:
        rank = e.get("rank")
        steps = run.steps_of(e)
        frames = rank_stack(e)
        user = _user_frames(run, frames)
        if e in stuck:
            where = _where(run, user[-1]) if user else (_where(run, frames[-1]) if frames else "an unknown place (no stack was recorded)")
            parts.append(f"rank {rank} was stuck after {steps} step(s) at {where}")
        else:
            status = (e.get("result") or {}).get("status") or "no result"
            parts.append(f"rank {rank} ended ({status}) after {steps} step(s)")
        if frames:
            stacks[str(rank)] = "\n".join(_where(run, f) for f in _shown(run, frames)[-12:])
    first = stuck[0]
    why = first.get("why_killed") or "it was still running when the run's timeout came"
    user = _user_frames(run, rank_stack(first))
    location: dict[str, Any] = {}
    if user:
        frame = user[-1]
        location = {"line": int(frame.get("line") or 0) or None, "function": frame.get("function")}
        file = os.path.abspath(str(frame.get("file")))
        location["path"] = os.path.relpath(file) if file.startswith(os.getcwd() + os.sep) else file
    yield Found(
        f"rank(s) {', '.join(str(e.get('rank')) for e in stuck)} never finished: probably waiting in a collective the other "
        f"rank(s) did not reach ({why})",
        observation="; ".join(parts),
        measurements={"stacks": stacks, "steps": {str(e.get("rank")): run.steps_of(e) for e in run.entries},
                      "stuck_ranks": [e.get("rank") for e in stuck]},
        next_test="Compare the lines above: every rank should be waiting in the same collective. Put that collective "
                  f"on every rank (or out of the rank-0-only branch) and rerun `{run.command}`.",
        fix="Call every collective on all ranks; give all ranks the same number of batches (drop_last=True, or torch's Join); "
            "do not return or break early on one rank.",
        step=run.steps_of(first), **location,
    )


def rank_findings(run: RanksRun) -> list:
    """The cross-rank checks' findings on a whole world."""
    from mlsleuth.runtime.registry import run_checks

    return list(run_checks("trace", run, only=lambda check_id: check_id in RANK_CHECK_IDS))
