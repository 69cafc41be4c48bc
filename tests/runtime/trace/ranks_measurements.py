"""Hand-made per-rank measurements for the cross-rank check tests (what each rank's ``ranks`` observer and
the rank launcher would report)."""

from __future__ import annotations

from mlsleuth.runtime.trace.checks_ranks import RanksRun, rank_findings


def rank_entry(rank, *, params=None, grads=None, samplers=None, wrappers=("DistributedDataParallel",), status="max-steps",
               steps=10, ended="exited", why_killed=None, stacks=None, hang=None, sharded=False, shard_keys=None, grad_sync=None):
    observer = {"rank": rank, "world_size": 2, "params": params or {}, "grads": grads or {}, "param_names": ["fc.weight", "fc.bias"],
                "samplers": samplers or [], "wrappers": list(wrappers), "sharded": sharded, "steps": steps}
    if shard_keys is not None:  # which piece of each parameter the rank holds (rank_sync.shard_key)
        observer["shard_keys"] = list(shard_keys)
    result = {"status": status, "steps": steps, "observers": {"ranks": observer}}
    if grad_sync is not None:  # what rank_grad_sync.GradSyncObserver reports
        result["observers"]["grad_sync"] = grad_sync
    if hang is not None:
        result["hang"] = hang
    return {"rank": rank, "result": result, "last_step": steps, "ended": ended, "why_killed": why_killed, "stacks": stacks}


def findings_for(check: str, entries: list, script_dir: str | None = None) -> list:
    run = RanksRun(entries, world_size=len(entries), path="train.py", command="mlsleuth trace train.py --nproc-per-node 2",
                   script_dir=script_dir)
    return [f for f in rank_findings(run) if f.rule == check]
