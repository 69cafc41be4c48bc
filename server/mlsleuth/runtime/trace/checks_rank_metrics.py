"""Cross-rank check of ``mlsleuth trace``: an evaluation metric of one rank's shard reported as the whole data set's.

Reads each rank's ``shard_eval`` observer data (``runtime/child/rank_metrics.py``) through the
:class:`~mlsleuth.runtime.trace.checks_ranks.RanksRun` of a multi-process run; the static twin is
the scan rule ``shard-metric-logged-as-global``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime.registry import Found, runtime_check
from mlsleuth.runtime.trace.checks_ranks import RanksRun


def _shard_eval(run: RanksRun) -> dict[int, dict[str, Any]]:
    out = {}
    for e in run.entries:
        data = ((e.get("result") or {}).get("observers") or {}).get("shard_eval")
        if isinstance(data, dict):
            out[int(e["rank"])] = data
    return out


@runtime_check("ddp-metric-of-one-shard-reported", tool="trace", category="distributed", severity="warning")
def ddp_metric_of_one_shard_reported(run: Any) -> Iterator[Found]:
    """Rank 0 printed or logged an evaluation metric of its own DistributedSampler shard; no rank reduced it.

    What it finds: in a multi-process run, an evaluation pass (under `torch.no_grad()` or with the
    model in eval mode) over a DataLoader whose sampler is a `DistributedSampler`, followed by a `print`
    or `logging` line on rank 0 that reads like a metric (a metric word and a number) before training
    resumed, while the other ranks printed nothing for that pass and no rank called anything that
    combines values across processes in between (`all_reduce`, `all_gather`, `reduce`, `gather`, as
    `accelerator.gather_for_metrics` and torchmetrics do).
    Why it matters: each rank evaluated only its 1/N of the data. The number rank 0 shows is the metric
    of its shard, labelled as the validation result: noisier than the whole set's, and biased when the
    shards differ; model selection and early stopping then follow a subset.
    How to confirm: print the value on every rank together with the rank: the values differ.
    What to do instead: all-reduce the sums and counts (or all-gather the predictions) on every rank,
    then let rank 0 print the combined value; or use torchmetrics / `accelerator.gather_for_metrics`.
    """
    if not isinstance(run, RanksRun) or run.world_size < 2:
        return
    data = _shard_eval(run)
    if 0 not in data or len(data) < 2:
        return
    for report in data[0].get("reports") or []:
        pass_index = report.get("pass")
        passes = {p.get("index"): p for p in data[0].get("passes") or []}
        shard = passes.get(pass_index) or {}
        if shard.get("combined"):
            continue
        others = [r for r in data if r != 0]
        if any(any(o.get("pass") == pass_index for o in data[r].get("reports") or []) for r in others):
            continue  # every rank printed its own value: visible as per-rank lines
        if any(any(p.get("index") == pass_index and p.get("combined") for p in data[r].get("passes") or []) for r in others):
            continue
        where = report.get("where") or {}
        file, line = where.get("file"), where.get("line")
        in_script = bool(file and run.script_dir and os.path.abspath(file).startswith(os.path.abspath(run.script_dir) + os.sep))
        own_line = in_script and bool(run.path) and os.path.basename(file) == os.path.basename(str(run.path))
        samples, total = shard.get("samples"), shard.get("dataset")
        share = f"{samples} of the {total} samples" if samples and total else "its shard of the samples"
        yield Found(
            f"rank 0 reported an evaluation metric of its own DistributedSampler shard ({share}) and no rank combined it: "
            f"`{report.get('text', '')[:80]}`",
            observation=f"the evaluation pass before step {report.get('step')} iterated a DistributedSampler loader under "
                        f"no_grad/eval on every rank; rank 0 then wrote `{report.get('text', '')}` ({report.get('how')}"
                        + (f", {os.path.relpath(file, run.script_dir)}:{line}" if in_script else "")
                        + "); the other ranks printed nothing for that pass, and no all_reduce/all_gather/reduce/gather was "
                          "called between the pass and the line",
            measurements={"text": report.get("text"), "samples": samples, "dataset": total, "step": report.get("step"),
                          "world_size": run.world_size},
            next_test=f"Print the value on every rank with its rank number (drop the rank-0 guard) and rerun `{run.command}`: "
                      "the values differ.",
            fix="All-reduce the metric's sums and counts (or all-gather the predictions) on every rank before rank 0 "
                "prints it, or use torchmetrics / accelerator.gather_for_metrics.",
            line=line if own_line else None, step=report.get("step"), phase="evaluation",
        )
        return
