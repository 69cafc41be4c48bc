"""Cross-rank check of how the ranks combine their gradients: summed where they should be averaged.

Reads each rank's ``grad_sync`` observer data (``runtime/child/rank_grad_sync.py``): per parameter, the gradient
sum right after the last backward before an update (``local``) and at ``optimizer.step()`` (``stepped``), for the
first few updates. Data parallelism means every rank steps on the mean of the ranks' gradients; a gradient equal
to their *sum* is world_size times too large.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.common import fmt
from mlsleuth.runtime.registry import Found, runtime_check
from mlsleuth.runtime.trace.checks_ranks import RanksRun, values_differ, is_multirank

WINDOWS = 4  # updates the replica watch (runtime/child/trace_replicas.py) looks at

# optimizers whose update does not grow with the gradient's scale (normalised by its running magnitude or sign):
# a summed gradient changes their steps only through eps; matched against the class name, lower-cased
SCALE_FREE_OPTIMIZERS = ("adam", "lamb", "lars", "lion", "rmsprop", "adagrad", "adadelta", "adafactor", "adan", "sophia",
                         "shampoo", "prodigy", "dadapt", "novograd", "muon", "signsgd")


def _numbers(values: Any) -> list[float | None]:
    out: list[float | None] = []
    for v in values if isinstance(values, list) else []:
        out.append(float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None)
    return out


def _fit(stepped: list[float], mean: list[float]) -> tuple[float, float] | None:
    """``(ratio, residual)``: the least-squares ``stepped ≈ ratio * mean`` over the parameters, and the relative
    size of what the ratio leaves unexplained."""
    den = sum(m * m for m in mean)
    norm = math.sqrt(sum(g * g for g in stepped))
    if den <= 0 or norm <= 0:
        return None
    ratio = sum(g * m for g, m in zip(stepped, mean)) / den
    residual = math.sqrt(sum((g - ratio * m) ** 2 for g, m in zip(stepped, mean))) / norm
    return ratio, residual


def step_ratio(per_rank: dict[int, dict[str, Any]], world_size: int) -> dict[str, Any] | None:
    """How the gradient the ranks stepped on relates to the mean of their local gradients at one update, or None when
    it cannot be told (a rank missing, ranks stepping on different gradients, local gradients that cancel out)."""
    if len(per_rank) != world_size or world_size < 2:
        return None
    local = {r: _numbers(d.get("local")) for r, d in per_rank.items()}
    stepped = {r: _numbers(d.get("stepped")) for r, d in per_rank.items()}
    n = min(len(v) for v in [*local.values(), *stepped.values()])
    idx = [i for i in range(n) if all(v[i] is not None for v in [*local.values(), *stepped.values()])]
    if not idx:
        return None
    ranks = sorted(per_rank)
    base = stepped[ranks[0]]
    if any(values_differ(base[i], stepped[r][i]) for r in ranks[1:] for i in idx):
        return None  # not one gradient: ddp-grads-differ-across-ranks says so
    mean = [sum(local[r][i] for r in ranks) / world_size for i in idx]
    biggest = max(math.sqrt(sum(local[r][i] ** 2 for i in idx)) for r in ranks)
    if biggest <= 0 or math.sqrt(sum(m * m for m in mean)) < T.GRAD_SUM_MIN_MEAN_SHARE * biggest:
        return None
    fit = _fit([base[i] for i in idx], mean)
    if fit is None:
        return None
    in_backward = all(not values_differ(local[ranks[0]][i], local[r][i]) for r in ranks[1:] for i in idx)  # equal right after backward
    return {"ratio": fit[0], "residual": fit[1], "parameters": len(idx), "synced_in_backward": in_backward}


def _summed(ratio: dict[str, Any], world_size: int) -> bool:
    return abs(ratio["ratio"] - world_size) <= T.GRAD_SUM_RATIO_RTOL * world_size and ratio["residual"] <= T.GRAD_SUM_RESIDUAL


def _averaged(ratio: dict[str, Any]) -> bool:
    return abs(ratio["ratio"] - 1.0) <= T.GRAD_SUM_RATIO_RTOL and ratio["residual"] <= T.GRAD_SUM_RESIDUAL


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b))


def world_share_of_loss(step: dict[str, Any], world_size: int) -> float | None:
    """A constant the loss was divided by before backward that makes it a share of the global loss: the world size
    (times the micro-batches of the step, the batch size or the number of input elements: a sum over the rank's
    samples or tokens divided by the global count), or a value all-reduced across the ranks (a global count)."""
    k = max(1, int(step.get("backwards") or 1))
    sizes = [v for v in _numbers(step.get("inputs")) if v is not None and v >= 1]
    multiples = {1, k, *sizes, *(k * v for v in sizes)}
    for d in _numbers(step.get("divisors")):
        if d is None or d <= 0:
            continue
        if any(_near(d, world_size * m) for m in multiples) or any(v is not None and _near(d, v) for v in _numbers(step.get("reduced"))):
            return d
    return None


def _site(run: RanksRun, reduces: list[dict[str, Any]]) -> dict[str, Any] | None:
    for rec in reduces:
        site = rec.get("site") or {}
        if site.get("file") and isinstance(site.get("line"), int):
            return {**site, "op": rec.get("op")}
    return None


def _display(path: str) -> str:
    full = os.path.abspath(path)
    return os.path.relpath(full) if full.startswith(os.getcwd() + os.sep) else full


@runtime_check("ddp-grads-summed-not-averaged", tool="trace", category="distributed", severity="warning")
def ddp_grads_summed_not_averaged(run: Any) -> Iterator[Found]:
    """The ranks step on the sum of their gradients, not their mean.

    What it finds: in a run of two ranks or more, on at least two of the first updates, every rank stepped
    on a gradient equal to the *sum* of the gradients the ranks' own backward passes produced (per-parameter
    gradient sums fit `world_size x` their mean with a relative residual under {T.GRAD_SUM_RESIDUAL:g}),
    typically a hand-written `dist.all_reduce(p.grad)` (whose default operation is SUM) with no division by the
    world size. The all-reduce call seen between backward and step is named.
    Stays quiet when the step uses the mean (DistributedDataParallel, all_reduce followed by a division,
    `ReduceOp.AVG`); when each rank's loss was divided by the world size (or by world_size x its batch size, or
    by a count all-reduced across the ranks) right before backward, so the sum *is* the gradient of the global
    mean loss; and for optimizers
    whose update does not scale with the gradient (Adam and its relatives, RMSprop, Adagrad, Lion, ...), for which
    the sum changes almost nothing.
    Why it matters: with SGD the step size is proportional to the gradient, so the effective learning rate is
    world_size times the configured one and changes with the number of GPUs: a learning rate tuned on one
    process diverges or kills units on eight, and results cannot be reproduced at another scale. Nothing errors.
    How to confirm: on two ranks, print one parameter's `p.grad.sum()` right after `loss.backward()` on each rank,
    and again right before `optimizer.step()`: the second value is the sum of the first ones, not their mean.
    What to do instead: divide after the all-reduce (`dist.all_reduce(g); g /= dist.get_world_size()`), use
    `op=dist.ReduceOp.AVG` (NCCL), or wrap the model in DistributedDataParallel, which averages. If the sum is
    meant, divide each rank's loss by the world size before backward.
    """
    if not isinstance(run, RanksRun) or not is_multirank(run):
        return
    data = run.observer("grad_sync")
    n = run.world_size
    if len(data) != n:
        return
    optimizer = next((d.get("optimizer") for d in data.values() if d.get("optimizer")), None)
    if optimizer and any(word in optimizer.lower() for word in SCALE_FREE_OPTIMIZERS):
        return
    keys = sorted({k for d in data.values() for k in (d.get("steps") or {}) if k.isdigit()}, key=int)
    summed, averaged = [], []
    for key in keys:
        per_rank = {r: (d.get("steps") or {}).get(key) for r, d in data.items()}
        if any(not isinstance(v, dict) for v in per_rank.values()):
            continue
        ratio = step_ratio(per_rank, n)
        if ratio is None:
            continue
        if _summed(ratio, n):
            if any(world_share_of_loss(step, n) is not None for step in per_rank.values()):
                return  # each rank's loss is its share of the global loss: the sum is the right gradient
            summed.append((int(key), ratio, per_rank))
        elif _averaged(ratio):
            averaged.append(int(key))
    if averaged or len(summed) < min(2, len(keys)) or not summed:
        return
    first_step, first, per_rank = summed[0]
    reduces = [rec for step in per_rank.values() for rec in step.get("reduces") or []]
    site = _site(run, reduces)
    wrappers = sorted({w for d in run.data.values() for w in d.get("wrappers") or []})
    if first["synced_in_backward"] and "DistributedDataParallel" in wrappers:
        how = ("DistributedDataParallel had already averaged the gradients in backward, and a second all-reduce summed "
               "them again")
    elif site is not None:
        how = f"dist.all_reduce (op {site.get('op')}) summed them between backward() and optimizer.step()"
    else:
        how = "they were summed across the ranks between backward() and optimizer.step()"
    where = ""
    location: dict[str, Any] = {}
    if site is not None:
        shown = _display(site["file"])
        where = f" at {shown}:{site['line']} in {site.get('function')}"
        location = {"path": shown, "line": site["line"], "function": site.get("function")}
    ratios = ", ".join(f"update {s}: {fmt(r['ratio'])}" for s, r, _ in summed[:4])
    yield Found(
        f"gradients are summed across the {n} ranks, not averaged: each update is {n}x the data-parallel gradient, so "
        f"the effective learning rate is {n}x the configured one and changes with the number of processes",
        observation=f"before {len(summed)} of the first updates every rank stepped on the sum of the ranks' local gradients "
                    f"(the stepped gradient / the mean of the local ones, over {first['parameters']} parameters: {ratios}; "
                    f"DDP's mean gives 1); {how}{where}; no division of the loss by the world size was seen"
                    + (f"; optimizer {optimizer}" if optimizer else ""),
        measurements={"world_size": n, "steps": [s for s, _, _ in summed], "ratios": [r["ratio"] for _, r, _ in summed],
                      "residuals": [r["residual"] for _, r, _ in summed], "optimizer": optimizer, "wrappers": wrappers,
                      "all_reduce": site},
        next_test="On two ranks print p.grad.sum() of one parameter right after loss.backward() and right before "
                  f"optimizer.step(): the second is the sum of the first ones. Then rerun `{run.command}`.",
        fix="Divide the all-reduced gradients by dist.get_world_size() (or use ReduceOp.AVG, or DistributedDataParallel); "
            "if the sum is intended, divide each rank's loss by the world size before backward().",
        step=first_step, phase="optimizer", **location,
    )


@runtime_check("replica-grads-differ-at-step", tool="trace", category="distributed", severity="error")
def replica_grads_differ_at_step(run: Any) -> Iterator[Found]:
    """Copies of one model trained in one process step on different gradients, although their gradients were averaged
    earlier in the same accumulation window.

    What it finds: in a single process, two or more optimizers over copies of one model (same parameter shapes,
    same values before the first update: `copy.deepcopy` replicas, one per shard or device) whose gradients were
    identical and non-zero at a backward pass inside an accumulation window (a hand-written all-reduce/average ran)
    but differ when the optimizers step, within the first four updates.
    Why it matters: averaging must follow the last micro-batch of the window. Done after an earlier one (the
    `no_sync()` of a hand-made DistributedDataParallel stand-in applied to the wrong micro-batches, e.g.
    `step % accum != 0` with a counter starting at 0), each copy steps on the average of the early micro-batches
    plus its own later ones: the copies drift apart and no longer train one model. Nothing errors; the loss may
    still fall.
    Stays quiet when the copies' gradients are equal at every step (averaging after the last micro-batch), when
    they were never made equal (independent models, federated or local-SGD simulations that average weights, not
    gradients), and for a single model.
    How to confirm: print one parameter's `p.grad.sum()` for every copy right before the optimizers step: with
    the averaging in the right place the values are identical.
    What to do instead: average (or all-reduce) after the last micro-batch of each window, i.e. skip the
    synchronisation exactly when the optimizer will not step: `no_sync` when `(i + 1) % accum != 0`.
    """
    if isinstance(run, RanksRun) or not isinstance(getattr(run, "data", None), dict):
        return
    rec = run.data.get("replicas") or {}
    windows = [w for w in rec.get("windows") or [] if isinstance(w, dict)]
    bad = [w for w in windows if isinstance(w.get("synced_at_backward"), int) and (w.get("differ") or 0) > 0]
    if not bad:
        return
    first = bad[0]
    names = ", ".join(first.get("parameters") or [])
    yield Found(
        f"the {rec.get('copies')} model copies step on different gradients: their gradients were averaged earlier in the "
        f"accumulation window, not after its last micro-batch, so the copies drift apart",
        observation=f"before update {first['step']} the copies held equal gradients at backward pass {first['synced_at_backward']} "
                    f"of the window's {first.get('backwards')}, then different gradients for {first['differ']} of "
                    f"{first.get('compared')} parameters when the optimizers stepped ({names}); "
                    f"{len(bad)} of {len(windows)} watched updates looked like this",
        measurements={"copies": rec.get("copies"), "windows": windows[:8]},
        next_test="Print one parameter's p.grad.sum() for every copy right before optimizer.step(): the values must be "
                  f"identical. Then rerun `{run.command}`.",
        fix="Synchronise the gradients after the last micro-batch of each accumulation window (skip the sync exactly when "
            "the optimizer will not step, e.g. no_sync() when (i + 1) % accum != 0).",
        step=first["step"], phase="backward",
    )
