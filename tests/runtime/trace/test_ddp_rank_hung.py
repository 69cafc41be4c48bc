"""`ddp-rank-hung` (trace, multi-process): a rank still running at the timeout, with its stack."""

from __future__ import annotations

from .ranks_measurements import findings_for, rank_entry

CHECK = "ddp-rank-hung"
STACK = """Current thread 0x00007f (most recent call first):
  File "/env/torch/distributed/distributed_c10d.py", line 5356 in barrier
  File "/proj/train.py", line 28 in <module>
  File "<frozen runpy>", line 88 in _run_code
"""


def test_a_rank_stuck_in_a_collective_is_found_with_its_line():
    entries = [rank_entry(0, status="hang", steps=4, ended="killed", why_killed="the run's timeout was reached", stacks=STACK),
               rank_entry(1, status="exception", steps=4)]
    found = findings_for(CHECK, entries, script_dir="/proj")
    assert len(found) == 1
    f = found[0]
    assert f.measurements["stuck_ranks"] == [0] and f.location.line == 28 and f.location.step == 4
    assert "rank 0 was stuck after 4 step(s) at train.py:28" in f.observation
    assert "rank 1 ended (exception)" in f.observation


def test_the_watchdog_stack_is_used_when_no_dump_came():
    hang = {"frames": [{"file": "/proj/train.py", "line": 24, "function": "<module>", "code": "loss.backward()"}]}
    entries = [rank_entry(0, steps=4, status="hang", hang=hang), rank_entry(1, steps=4, status="hang", hang=hang)]
    found = findings_for(CHECK, entries, script_dir="/proj")
    assert found and "train.py:24" in found[0].observation and "loss.backward()" in found[0].observation


def test_ranks_that_all_finished_are_not_flagged():
    assert not findings_for(CHECK, [rank_entry(0), rank_entry(1)], script_dir="/proj")


def test_a_rank_that_lingered_after_writing_its_result_is_not_a_hang():
    entries = [rank_entry(0, ended="lingered", why_killed="did not exit"), rank_entry(1)]
    assert not findings_for(CHECK, entries, script_dir="/proj")
