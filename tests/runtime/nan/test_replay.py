"""Replay over several steps from a sparse snapshot, and the batches the watch keeps for it.

The cheap watch checks every step, so the failing step is known; the replay steps forward from
the newest snapshot (cheap checks on the steps before, every operation on the failing one) and
the report says which steps it replayed. In script mode the batch of each step is what the model
was called with (keywords included) plus the target of a torch.nn loss module; the saved file
replays the steps from the snapshot to the failing one.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from mlsleuth.runtime.nan import locate_nan

CASES_DIR = Path(__file__).resolve().parents[2] / "nan_cases"
MAIN_RULES = ("nan-in-batch", "nan-born-forward", "nan-born-backward", "nan-born-optimizer")

pytestmark = pytest.mark.slow


def _run(target, tmp_path, **kwargs):
    kwargs.setdefault("max_steps", 100)
    kwargs.setdefault("timeout_s", 120)
    return locate_nan(target, cwd=tmp_path, save_dir=tmp_path / "saved", **kwargs)


def setup_wrapper(tmp_path, module: str, flag: str) -> Path:
    """A FILE:FUNCTION wrapper around ``nan_cases/<module>.py:setup`` with ``flag`` on the command line."""
    wrapper = tmp_path / f"{module}_{flag.strip('-')}_setup.py"
    wrapper.write_text(textwrap.dedent(f"""
        import sys
        sys.argv.append({flag!r})
        sys.path.insert(0, {str(CASES_DIR)!r})
        import {module}

        def setup():
            return {module}.setup()
    """))
    return wrapper


def _main(report):
    main = [f for f in report.findings if f.rule in MAIN_RULES]
    assert len(main) == 1, [f.rule for f in report.findings]
    return main[0]


# -- FILE:FUNCTION: replay of several steps from a snapshot ------------------------------------------
def test_sparse_snapshot_replays_every_step_from_it_to_the_failing_one(tmp_path):
    report = _run(f"{CASES_DIR / 'zero_std.py'}:setup", tmp_path, snapshot_every=4)
    finding = _main(report)
    assert (finding.rule, finding.location.step, finding.location.module, finding.location.op) == ("nan-born-forward", 6, "0", "aten::div")
    replayed = report.summary.stats["replayed_steps"]
    assert (replayed["from"], replayed["first"], replayed["failing"], replayed["checked"], replayed["steps_run"]) == ("snapshot", 4, 6, [4, 5], 2)
    assert "Replayed steps 4-6 from the snapshot taken at the start of step 4: steps 4-5 with the cheap checks" in finding.observation
    assert finding.measurements["replay"]["reproduced"] is True
    assert not any(f.rule == "nan-replay-nondeterministic" for f in report.findings)


def test_failure_on_the_snapshot_step_replays_that_step_only(tmp_path):
    report = _run(f"{CASES_DIR / 'zero_std.py'}:setup", tmp_path, snapshot_every=3)
    replayed = report.summary.stats["replayed_steps"]
    assert (replayed["first"], replayed["failing"], replayed["checked"]) == (6, 6, None)
    assert "Replayed step 6 from the snapshot taken at the start of step 6 with every operation checked." in _main(report).observation


def test_replay_that_does_not_repeat_the_failure_is_nondeterministic_and_names_the_replayed_steps(tmp_path):
    # the loss fails on its 8th call (step 7); the replay from the snapshot of step 5 calls it for the
    # 9th to 11th time, state the snapshot cannot restore: the replay stays finite
    wrapper = setup_wrapper(tmp_path, "kwargs_batch", "--stateful")
    report = _run(f"{wrapper}:setup", tmp_path, snapshot_every=5)
    nondet = next(f for f in report.findings if f.rule == "nan-replay-nondeterministic")
    assert "the replay ran through step 7 without any non-finite value" in nondet.observation
    assert "Replayed steps 5-7 from the snapshot taken at the start of step 5" in nondet.observation
    assert nondet.measurements["replayed_steps"]["checked"] == [5, 6]
    main = _main(report)
    assert main.location.step == 7 and main.location.op is None  # seen by the cheap watch, not localised


def test_clean_setup_has_no_replay(tmp_path):
    wrapper = setup_wrapper(tmp_path, "kwargs_batch", "--clean")
    report = _run(f"{wrapper}:setup", tmp_path, snapshot_every=5)
    assert report.findings == [] and report.errors == []
    assert "replayed_steps" not in report.summary.stats


# -- script mode: the batch of every step, saved for the user's replay ------------------------------------
def _replay_saved_file(path):
    """What a user does with the saved file: restore the snapshot and run the listed steps on the saved batches."""
    sys.path.insert(0, str(CASES_DIR))
    try:
        import kwargs_batch
    finally:
        sys.path.pop(0)
    saved = torch.load(path)  # the default weights_only=True: only tensors and plain values in the file
    model = kwargs_batch.Scaled()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    model.load_state_dict(saved["model_state"])
    opt.load_state_dict(saved["optimizer_state"])
    torch.set_rng_state(saved["rng_state"]["torch"])
    losses, same_state = [], None
    for step in saved["replay_steps"]:
        if step == saved["step"]:  # the replayed state reaches the live state of the first run at the failing step
            live = saved["state_at_step"]["model_state"]
            same_state = all(torch.equal(v, live[k]) for k, v in model.state_dict().items())
        b = saved["batches"][step]
        out = model(*b["args"], **b["kwargs"])
        loss = torch.nn.MSELoss()(out, b["target"])
        losses.append(float(loss.detach()))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return saved, losses, same_state


def test_script_mode_keeps_keyword_inputs_and_loss_target_for_the_steps_since_the_snapshot(tmp_path):
    report = _run(CASES_DIR / "kwargs_batch.py", tmp_path, snapshot_every=5)
    assert report.errors == []
    finding = _main(report)
    assert (finding.rule, finding.location.step, finding.location.op) == ("nan-born-forward", 7, "aten::div")
    saved_file = Path(report.summary.stats["batch_file"])
    assert saved_file.name == "nan_step7.pt"
    assert "index 7: the arguments of the model's first call in that step and the target given to the loss module" in finding.observation
    assert "state at the start of step 5 and the batches of steps 5-7" in finding.observation
    assert "Replayed steps 0-7 by running the script again from its start" in finding.observation

    saved, losses, same_state = _replay_saved_file(saved_file)
    assert (saved["step"], saved["snapshot_step"], saved["replay_steps"]) == (7, 5, [5, 6, 7])
    assert sorted(saved["batches"][7]) == ["args", "kwargs", "target"] and sorted(saved["batches"][7]["kwargs"]) == ["scale", "x"]
    assert float(saved["batch"]["kwargs"]["scale"][3]) == 0.0
    assert all(torch.isfinite(torch.tensor(losses[:2]))) and not torch.isfinite(torch.tensor(losses[2]))
    assert same_state is True  # batches, dropout RNG and state of steps 5-6 were saved exactly


def test_script_mode_clean_twin_saves_nothing(tmp_path):
    report = _run(CASES_DIR / "kwargs_batch.py", tmp_path, snapshot_every=5, args=["--clean"])
    assert report.findings == [] and report.errors == []
    assert report.summary.stats["snapshots"]["batches_refused"] == 0
    assert not (tmp_path / "saved").exists()


def test_functional_loss_targets_are_said_to_be_missing_from_the_saved_batch(tmp_path):
    report = _run(CASES_DIR / "zero_std.py", tmp_path, snapshot_every=4)
    finding = _main(report)
    assert "not the loss targets: the loss is not computed by a torch.nn loss module" in finding.observation
    saved = torch.load(report.summary.stats["batch_file"])
    assert saved["targets_captured"] is False and "target" not in saved["batch"]
    assert saved["replay_steps"] == [4, 5, 6] and sorted(saved["batches"]) == [4, 5, 6]


def test_batches_over_the_memory_budget_are_refused_and_the_report_says_so(tmp_path):
    script = tmp_path / "big_batches.py"
    script.write_text(textwrap.dedent("""
        import torch
        torch.manual_seed(0)
        model = torch.nn.Linear(256, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for step in range(6):
            x = torch.randn(512, 256)          # 512 KiB per batch
            if step == 4:
                x[0, 0] = float("nan")
            loss = model(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    """))
    report = _run(script, tmp_path, snapshot_every=3, memory_budget_mb=0.6)
    finding = _main(report)
    assert (finding.rule, finding.location.step) == ("nan-in-batch", 4)
    assert report.summary.stats["snapshots"]["batches_refused"] >= 1
    saved = torch.load(report.summary.stats["batch_file"])
    assert torch.isnan(saved["batch"]["args"][0][0, 0])  # the failing step's batch is saved all the same
