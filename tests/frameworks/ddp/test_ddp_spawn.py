"""Scripts that start their own ranks with torch.multiprocessing.spawn: `trace` traces each spawned process as a rank
(runtime/child/trace_spawn.py) and merges them into one report, as for --nproc-per-node."""

from __future__ import annotations

import json
import os
import pickle
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch.distributed")

CHILD = Path(__file__).resolve().parents[3] / "server" / "mlsleuth" / "runtime" / "child"
FAMILIES = Path(__file__).resolve().parents[2] / "trace_scripts" / "families"


@pytest.fixture
def trace_spawn(monkeypatch):
    monkeypatch.syspath_prepend(str(CHILD))
    import trace_spawn

    return trace_spawn


def _rank_result(folder: Path, rank: int, status: str, steps: int) -> None:
    sub = folder / f"rank{rank}"
    sub.mkdir(parents=True)
    (sub / "result.json").write_text(json.dumps({"status": status, "steps": steps, "observers": {}}))
    (sub / "step").write_text(f"{steps:20d}\n")


def test_the_ranks_results_become_one_world_payload(trace_spawn, tmp_path):
    _rank_result(tmp_path, 0, "max-steps", 6)
    _rank_result(tmp_path, 1, "max-steps", 6)
    world = {"folder": str(tmp_path), "nprocs": 2, "start_method": "spawn", "started": 0.0, "running": False}
    payload = trace_spawn.gather(world, timed_out=False, config={"script": "train.py"})
    assert payload["status"] == "ranks" and payload["world_size"] == 2 and payload["steps"] == 6
    assert [e["rank"] for e in payload["ranks"]] == [0, 1] and all(e["ended"] == "exited" for e in payload["ranks"])
    from mlsleuth.runtime import multirank

    assert multirank.is_world(payload)


def test_a_rank_without_a_result_at_the_timeout_counts_as_stopped(trace_spawn, tmp_path):
    _rank_result(tmp_path, 0, "hang", 3)
    world = {"folder": str(tmp_path), "nprocs": 2, "start_method": "spawn", "started": 0.0, "running": True}
    payload = trace_spawn.gather(world, timed_out=True, config={})
    assert [(e["ended"], bool(e["why_killed"])) for e in payload["ranks"]] == [("killed", True), ("killed", True)]
    assert trace_spawn.gather({**world, "folder": str(tmp_path / "none")}, timed_out=True, config={}) is None


def test_ranks_that_never_stepped_leave_the_main_process_result(trace_spawn, tmp_path):
    watch = trace_spawn.SpawnWatch({})
    _rank_result(tmp_path, 0, "finished", 0)  # e.g. preprocessing workers
    watch.worlds.append({"folder": str(tmp_path), "nprocs": 1, "start_method": "spawn", "started": 0.0, "running": False})
    assert trace_spawn.world_payload([watch], {"status": "finished", "steps": 0}) is None


def test_a_spawned_process_mlsleuth_could_not_set_up_is_reported_as_an_internal_error(trace_spawn, tmp_path):
    watch = trace_spawn.SpawnWatch({})
    (tmp_path / "rank0").mkdir()
    (tmp_path / "rank0" / "setup_error.txt").write_text("Traceback ...\nImportError: boom")
    watch.worlds.append({"folder": str(tmp_path), "nprocs": 1, "start_method": "spawn", "started": 0.0, "running": False})
    payload = trace_spawn.world_payload([watch], {"status": "finished", "steps": 0, "observer_errors": []})
    assert payload["status"] == "finished" and "boom" in payload["observer_errors"][0]["traceback"]


def test_the_rank_target_pickles_by_reference(trace_spawn):
    target = trace_spawn.RankTarget(os.path.join, "/tmp/x", 2, {"max_steps": 3})
    again = pickle.loads(pickle.dumps(target))
    assert again.fn is os.path.join and again.nprocs == 2 and again.config == {"max_steps": 3}


def test_harness_modules_win_over_the_scripts_and_the_script_keeps_its_own(trace_spawn, tmp_path):
    (tmp_path / "train.py").write_text("")
    (tmp_path / "batch_order.py").write_text("MINE = True\n")
    sys.modules.pop("batch_order", None)
    sys.path.insert(0, str(tmp_path))
    try:
        with trace_spawn.harness_first(str(tmp_path / "train.py")):
            import batch_order

            assert not hasattr(batch_order, "MINE")
        import batch_order as again

        assert getattr(again, "MINE", False)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("batch_order", None)


@pytest.mark.slow
def test_spawned_ddp_with_no_sync_on_the_wrong_micro_batch_is_found_and_the_right_one_is_not():
    from mlsleuth.runtime.trace import trace

    bad = trace(FAMILIES / "grad_sync.py", args=["nosync-first"], steps=5, cwd=FAMILIES, timeout_s=240)
    assert bad.summary.stats["world_size"] == 2 and bad.summary.stats["steps_traced"] == {"0": 5, "1": 5}
    found = [f for f in bad.findings if f.rule == "ddp-grads-differ-across-ranks"]
    assert found and found[0].location.step == 0
    good = trace(FAMILIES / "grad_sync.py", args=["nosync"], steps=5, cwd=FAMILIES, timeout_s=240)
    assert good.errors == [] and not [f for f in good.findings if f.severity in ("error", "warning")], [f.message for f in good.findings]
