"""DDP end to end: `trace` and `nan` launch two gloo ranks on the CPU (`--nproc-per-node 2`), or run under
torchrun, and merge one report labelled by rank. Every test here starts processes (slow)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch.distributed")

SCRIPTS = Path(__file__).resolve().parent / "scripts"
pytestmark = pytest.mark.slow


def _trace(script: str, steps: int = 10, timeout: float = 240.0):
    from mlsleuth.runtime.trace import trace

    return trace(SCRIPTS / script, steps=steps, nproc_per_node=2, cwd=SCRIPTS, timeout_s=timeout)


def _rules(report, severities=("error", "warning", "info")) -> set[str]:
    return {f.rule for f in report.findings if f.severity in severities}


def test_a_clean_two_rank_ddp_run_draws_no_warning_or_error():
    report = _trace("ddp_clean.py", steps=8)
    assert report.errors == [], [e.message for e in report.errors]
    assert not _rules(report, ("error", "warning")), [f.message for f in report.findings]
    assert report.summary.stats["world_size"] == 2
    assert report.summary.stats["steps_traced"] == {"0": 8, "1": 8}


def test_clean_fsdp_runs_are_not_flagged_and_say_the_parameter_comparisons_were_not_run_and_why():
    pytest.importorskip("torch.distributed.fsdp", reason="FSDP needs a recent torch")
    for script in ("fsdp_clean.py", "fsdp1_clean.py"):  # FSDP2 (fully_shard) and FSDP1 (FullyShardedDataParallel)
        report = _trace(script, steps=6)
        assert report.errors == [], [e.message for e in report.errors]
        assert not _rules(report, ("error", "warning")), [f.message for f in report.findings]
        note = report.summary.stats["cross_rank_comparison"]
        assert "not compared" in note and note in report.summary.text


def test_hsdp_replicas_built_from_different_seeds_are_found_and_equal_ones_are_not():
    pytest.importorskip("torch.distributed.fsdp", reason="FSDP2 (fully_shard) needs a recent torch")
    bad = _trace("hsdp_rank_seed.py", steps=6)
    found = [f for f in bad.findings if f.rule == "ddp-params-differ-across-ranks"]
    assert found and "before the first update" in found[0].message and "sharded" in found[0].observation
    clean = _trace("hsdp_clean.py", steps=6)
    assert clean.errors == [] and not _rules(clean, ("error", "warning")), [f.message for f in clean.findings]
    assert "4 of 4 parameters compared" in clean.summary.stats["cross_rank_comparison"]


def test_a_validation_metric_of_rank_0s_shard_is_found_and_the_all_reduced_twin_is_not():
    found = [f for f in _trace("ddp_val_acc_one_shard.py", steps=12).findings if f.rule == "ddp-metric-of-one-shard-reported"]
    assert found and "16 of the 32 samples" in found[0].message and "val accuracy" in found[0].message
    line = next(n for n, text in enumerate((SCRIPTS / "ddp_val_acc_one_shard.py").read_text().splitlines(), 1) if "print(" in text)
    assert found[0].location.line == line
    clean = _trace("ddp_val_acc_reduced.py", steps=12)
    assert clean.errors == [] and not _rules(clean, ("error", "warning")), [f.message for f in clean.findings]


def test_missing_set_epoch_is_seen_at_runtime():
    report = _trace("ddp_no_set_epoch.py", steps=10)
    assert "ddp-sampler-same-order-each-epoch" in _rules(report)
    assert not report.errors


def test_loss_through_model_module_loses_gradient_sync():
    report = _trace("ddp_module_forward.py", steps=6)
    found = [f for f in report.findings if f.rule == "ddp-grads-differ-across-ranks"]
    assert found and found[0].location.step == 0
    assert "ddp-params-differ-across-ranks" not in _rules(report)  # one cause, reported once


def test_rank_dependent_seed_without_broadcast_desyncs_the_replicas():
    report = _trace("manual_allreduce_rank_seed.py", steps=6)
    found = [f for f in report.findings if f.rule == "ddp-params-differ-across-ranks"]
    assert found and "before the first update" in found[0].message
    assert "ddp-grads-differ-across-ranks" not in _rules(report)  # the gradients are averaged by hand


def test_a_collective_only_rank_0_reaches_is_reported_with_each_ranks_stack_within_the_timeout():
    started = time.monotonic()
    report = _trace("ddp_rank0_collective.py", steps=10, timeout=60)
    assert time.monotonic() - started < 60 + 15
    hung = [f for f in report.findings if f.rule == "ddp-rank-hung"]
    assert hung, [f.rule for f in report.findings]
    f = hung[0]
    barrier = next(n for n, line in enumerate((SCRIPTS / "ddp_rank0_collective.py").read_text().splitlines(), 1)
                   if "dist.barrier()" in line)
    assert f.location.line == barrier and "dist.barrier()" in f.observation
    assert f.measurements["steps"] == {"0": 4, "1": 4}
    assert set(f.measurements["stacks"]) == {"0", "1"}
    assert "loss.backward()" in f.measurements["stacks"]["1"]


def test_nan_stops_every_rank_and_replays_the_failing_one(tmp_path):
    from mlsleuth.runtime.nan import locate_nan

    report = locate_nan(SCRIPTS / "ddp_nan_one_rank.py", max_steps=30, nproc_per_node=2, cwd=SCRIPTS, timeout_s=300,
                        save_dir=tmp_path)
    stats = report.summary.stats
    assert stats["failing_rank"] == 1 and stats["failure_step"] == 2
    rules = {f.rule for f in report.findings}
    assert "nan-replay-nondeterministic" not in rules
    assert all(f.message.startswith("[rank 1]") for f in report.findings)
    assert not [e for e in report.errors if e.kind == "replay-failed"], [e.message for e in report.errors]


def test_nan_with_a_log_of_zero_on_one_shard_names_the_rank_the_line_and_frees_the_port(tmp_path):
    """Rank 1's shard holds a count of 0, so log(count) is -inf on rank 1 only; rank 0 sees the value only
    through the gradient all-reduce. Every rank stops, the world is replayed, and the report names rank 1's log."""
    import socket

    from mlsleuth.runtime.nan import locate_nan

    started = time.monotonic()
    report = locate_nan(SCRIPTS / "ddp_nan_log_zero.py", max_steps=30, nproc_per_node=2, cwd=SCRIPTS, timeout_s=200,
                        save_dir=tmp_path)
    assert time.monotonic() - started < 150  # stopped at step 3, not at the end of training or the timeout
    stats = report.summary.stats
    assert stats["failing_rank"] == 1 and stats["failure_step"] == 3
    assert not [e for e in report.errors if e.kind == "replay-failed"], [e.message for e in report.errors]
    (main,) = [f for f in report.findings if f.rule == "nan-born-forward"]
    assert main.message.startswith("[rank 1]") and main.location.op == "aten::log" and main.location.phase == "loss"
    line = next(n for n, text in enumerate((SCRIPTS / "ddp_nan_log_zero.py").read_text().splitlines(), 1) if "torch.log(cb)" in text)
    assert main.location.line == line
    assert "nan-replay-nondeterministic" not in {f.rule for f in report.findings}
    assert (tmp_path / "rank1" / "nan_step3.pt").exists()
    assert len(stats["rendezvous_ports"]) == 2  # the first run's and the replay's
    for port in stats["rendezvous_ports"]:  # nobody listens there any more: no rank's store outlived the run
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # closed connections may linger in TIME_WAIT
            sock.bind(("127.0.0.1", port))
            sock.listen()


def _torchrun(nproc: int, folder: Path, *args: str, timeout: float = 400) -> list[dict]:
    """Run ``mlsleuth ARGS`` as every rank of torchrun in a copy of the scripts; the JSON report each rank printed."""
    program = Path(sys.executable).parent / "mlsleuth"
    if not program.exists():
        pytest.skip("no mlsleuth console script next to this interpreter")
    workdir = folder / "project"  # ranks under torchrun write .mlsleuth/ranks/ in their working directory
    shutil.copytree(SCRIPTS, workdir, ignore=shutil.ignore_patterns(".mlsleuth", "__pycache__"))
    command = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(nproc), "--log-dir", str(folder / "logs"),
               "--redirects", "3", "--no-python", str(program), *args]
    done = subprocess.run(command, cwd=workdir, env={**os.environ, "OMP_NUM_THREADS": "1"}, capture_output=True, text=True,
                          timeout=timeout, check=False)
    reports = []
    for out in sorted((folder / "logs").rglob("stdout.log")):
        text = out.read_text()
        if "{" in text:
            reports.append(json.loads(text[text.index("{"):]))
    assert reports, done.stderr[-3000:]
    return reports


def test_trace_under_torchrun_merges_every_rank_on_rank_0(tmp_path):
    reports = _torchrun(2, tmp_path, "trace", "ddp_module_forward.py", "--steps", "6", "--timeout", "200", "--format", "json")
    merged = [r for r in reports if "ranks" in r["summary"]["stats"]]
    assert len(merged) == 1 and len(reports) == 2
    assert "ddp-grads-differ-across-ranks" in {f["rule"] for f in merged[0]["findings"]}


def test_nan_under_torchrun_at_world_size_1_replays_without_a_port_clash(tmp_path):
    (report,) = _torchrun(1, tmp_path, "nan", "ddp_nan_one_rank.py", "--max-steps", "30", "--timeout", "200",
                          "--save-dir", str(tmp_path / "saved"), "--format", "json")
    assert report["errors"] == [], report["errors"]
    rules = {f["rule"] for f in report["findings"]}
    assert rules and "nan-replay-nondeterministic" not in rules, rules


def test_nan_under_torchrun_with_two_ranks_merges_on_rank_0_and_keeps_each_ranks_batch(tmp_path):
    reports = _torchrun(2, tmp_path, "nan", "ddp_nan_log_zero.py", "--max-steps", "30", "--timeout", "200",
                        "--save-dir", str(tmp_path / "saved"), "--format", "json")
    merged = [r for r in reports if "ranks" in r["summary"]["stats"]]
    assert len(merged) == 1 and len(reports) == 2
    stats = merged[0]["summary"]["stats"]
    assert stats["failing_rank"] == 1 and stats["failure_step"] == 3
    findings = merged[0]["findings"]
    assert findings and all(f["message"].startswith("[rank 1]") for f in findings)
    assert "cannot restart" in findings[0]["observation"]  # no replay under a foreign launcher, and it says why
    assert (tmp_path / "saved" / "rank1" / "nan_step3.pt").exists() and (tmp_path / "saved" / "rank0").is_dir()
