"""Merging ranks into one report, and the multi-rank arguments (no process is started here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mlsleuth.report import Finding, Location
from mlsleuth.runtime import multirank
from mlsleuth.runtime.common import RuntimeInputError

SCRIPTS = Path(__file__).resolve().parent / "scripts"


def _finding(rule: str, message: str = "m", **where) -> Finding:
    return Finding(rule=rule, category="training-loop", severity="warning", message=message, location=Location(path="t.py", **where))


def test_a_finding_on_every_rank_is_reported_once_for_all_ranks():
    merged = multirank.merge_findings([(0, [_finding("a"), _finding("b", module="fc")]), (1, [_finding("a")])], 2)
    by_rule = {f.rule: f for f in merged}
    assert len(merged) == 2
    assert by_rule["a"].message.startswith("[all ranks] ") and by_rule["a"].measurements["ranks"] == "all"
    assert by_rule["b"].message.startswith("[rank 0] ") and by_rule["b"].measurements["ranks"] == [0]


def test_errors_are_labelled_and_merged_the_same_way():
    from mlsleuth.report import ErrorEntry

    same = ErrorEntry(kind="timeout", message="stopped")
    merged = multirank.merge_errors([(0, [same]), (1, [same, ErrorEntry(kind="user-exception", message="boom")])], 2)
    assert [e.message for e in merged] == ["[all ranks] stopped", "[rank 1] boom"]


@pytest.mark.parametrize("bad", [0, -1, 65, 1.5, True, "2"])
def test_nproc_per_node_is_validated(bad):
    from mlsleuth.runtime.trace import prepare_trace

    with pytest.raises(RuntimeInputError, match="--nproc-per-node"):
        prepare_trace(SCRIPTS / "ddp_clean.py", nproc_per_node=bad)


def test_nproc_per_node_is_refused_under_torchrun(monkeypatch):
    from mlsleuth.runtime.nan import prepare_nan

    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(RuntimeInputError, match="torchrun"):
        prepare_nan(str(SCRIPTS / "ddp_nan_one_rank.py"), nproc_per_node=2)


def test_the_launch_key_is_shared_by_the_ranks_of_one_launch_only():
    one = {"TORCHELASTIC_RUN_ID": "abc", "MASTER_ADDR": "h", "MASTER_PORT": "1234"}
    assert multirank.world_key({**one, "RANK": "0"}) == multirank.world_key({**one, "RANK": "1"})
    assert multirank.world_key(one) != multirank.world_key({**one, "MASTER_PORT": "1235"})
    assert multirank.external_world({"RANK": "1", "WORLD_SIZE": "2"}) == (1, 2)
    assert multirank.external_world({"SLURM_PROCID": "3", "SLURM_NTASKS": "4"}) == (3, 4)
    assert multirank.external_world({}) is None


def _entry(rank: int, grads: list[float], steps: int = 3) -> dict:
    ranks = {"rank": rank, "world_size": 2, "params": {"0": [1.0, 2.0]}, "grads": {"0": grads}, "param_names": ["w", "b"],
             "samplers": [], "wrappers": ["DistributedDataParallel"], "sharded": False, "steps": steps}
    result = {"status": "max-steps", "steps": steps, "observers": {"ranks": ranks}, "config": {"script": str(SCRIPTS / "ddp_clean.py")},
              "environment": {"python": "python3"}}
    return {"rank": rank, "returncode": 0, "result": result, "last_step": steps, "ended": "exited", "why_killed": None,
            "stacks": None, "duration_s": 1.0, "stdout_tail": "", "stderr_tail": "", "written_at": 0}


def test_merge_reads_the_rank_files_that_ranks_under_torchrun_wrote(tmp_path):
    from mlsleuth.runtime.trace.world import merge_folder

    for rank, grads in ((0, [0.1, 0.2]), (1, [0.3, 0.2])):
        (tmp_path / f"rank{rank}.json").write_text(json.dumps(_entry(rank, grads)))
    report = merge_folder(tmp_path)
    assert report.summary.stats["world_size"] == 2
    assert [f.rule for f in report.findings] == ["ddp-grads-differ-across-ranks"]
    assert report.summary.stats["ranks"] == {"0": {"status": "max-steps", "steps": 3}, "1": {"status": "max-steps", "steps": 3}}


def test_merge_of_an_empty_folder_says_what_to_do(tmp_path):
    from mlsleuth.runtime.trace.world import merge_folder

    with pytest.raises(RuntimeInputError, match="rank\\*.json"):
        merge_folder(tmp_path)


def test_the_mcp_tools_take_nproc_per_node_and_refuse_a_bad_one(tmp_path, monkeypatch):
    import anyio
    from mcp import Client
    from mlsleuth.mcp_server import build_server

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "train.py").write_text("print('never runs')\n")
    server = build_server(tmp_path)

    async def go():
        async with Client(server) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            refused = await client.call_tool("trace_training", {"script": "train.py", "nproc_per_node": 0})
            return tools, refused

    tools, refused = anyio.run(go)
    for name in ("trace_training", "locate_nan"):
        assert "nproc_per_node" in tools[name].input_schema["properties"]
    assert refused.is_error


def test_nan_merge_names_the_rank_whose_value_came_first_even_with_a_rank_missing():
    from mlsleuth.process_runner import ChildResult
    from mlsleuth.runtime.nan.run import build_report
    from mlsleuth.runtime.nan.world import first_failure, world_report

    def entry(rank, step, phase):
        nan = {"failure": {"step": step, "phase": phase, "target": "loss"}}
        return {"rank": rank, "result": {"status": "non-finite", "steps": step, "observers": {"nan": nan}}, "last_step": step}

    entries = [entry(0, 3, "backward"), entry(2, 3, "forward")]  # rank 1's file never came
    assert first_failure(entries) == 2
    payload = {"status": "ranks", "world_size": 3, "ranks": entries, "replay": None, "replay_skipped": "no replay here",
               "failing_rank": 2}
    report = world_report(ChildResult(returncode=0, duration_s=1.0, result=payload), info={"interpreter": "python"},
                          path="train.py", command="mlsleuth nan train.py", build_single=build_report)
    assert report.summary.stats["failing_rank"] == 2
    assert report.findings and all(f.message.startswith("[rank 2]") for f in report.findings)
    assert "no replay here" in report.findings[0].observation
