"""`causal-leakage` inside `trace`: the diagnose probe runs on the traced script's first batch whenever the loss
targets are the inputs shifted by one, in both alignments real code has, and names the module that looks ahead."""

from __future__ import annotations

from pathlib import Path

import pytest
from mlsleuth.runtime.common import CHILD_DIR
from mlsleuth.runtime.trace.causal import causal_findings

CHECK = "causal-leakage"


def test_a_measured_leak_is_placed_at_the_module_that_looks_ahead():
    measured = {"time_steps": 9, "t": 4, "future_grad": 0.1, "past_grad": 0.6, "first_leaking_step": 5, "via": "embedding output",
                "leak_after": "blocks.layers.0", "leak_before": "blocks.layers.1.self_attn", "root": "model",
                "reason": "the loss targets are the inputs shifted by one position (next-token prediction)"}
    (found,) = causal_findings({"causal_leakage": measured})
    assert found.rule == CHECK and found.location.module == "blocks.layers.1.self_attn"
    assert "shifted by one" in found.observation and "blocks.layers.1.self_attn" in found.observation


def test_a_causal_model_or_a_skipped_probe_gives_nothing():
    assert causal_findings({"causal_leakage": {"time_steps": 9, "t": 4, "future_grad": 0.0, "past_grad": 0.6}}) == []
    assert causal_findings({"causal_leakage": {"skipped": "no integer loss target was seen in the first step"}}) == []
    assert causal_findings({}) == []


def test_both_target_alignments_are_next_token_and_a_tagger_is_not(monkeypatch: pytest.MonkeyPatch):
    torch = pytest.importorskip("torch")
    monkeypatch.syspath_prepend(str(CHILD_DIR))
    import trace_causal

    seq = torch.randint(0, 50, (4, 10))
    x, y = seq[:, :-1], seq[:, 1:]
    assert trace_causal._why_not_next_token(x, y.reshape(-1)) is None  # noqa: SLF001 - y = seq[:, 1:] for x = seq[:, :-1]
    assert trace_causal._why_not_next_token(x, x[:, 1:].reshape(-1)) is None  # noqa: SLF001 - logits[:, :-1] vs x[:, 1:]
    assert "shifted by one" in trace_causal._why_not_next_token(x, (x % 3).reshape(-1))  # noqa: SLF001 - per-position tags
    assert "shifted by one" in trace_causal._why_not_next_token(x, x[:, :-1].reshape(-1))  # noqa: SLF001 - unshifted


@pytest.mark.slow
@pytest.mark.parametrize("mode, leaks", [("nomask", True), ("boolmask", False), ("innershift", True), ("tagger", False)])
def test_trace_finds_a_decoder_without_a_mask(mode: str, leaks: bool):
    from mlsleuth.runtime.trace import trace

    folder = Path(__file__).resolve().parents[2] / "trace_scripts" / "families"
    report = trace(folder / "tiny_lm_shapes.py", args=[mode], steps=3, cwd=folder, timeout_s=120)
    assert report.errors == [], [e.message for e in report.errors]
    found = [f for f in report.findings if f.rule == CHECK]
    measured = report.summary.stats.get("causal_leakage") or {}
    assert bool(found) == leaks, measured
    if leaks:
        assert found[0].location.module.startswith("blocks."), found[0].location.module
    elif mode == "boolmask":
        assert measured.get("future_grad") == 0.0
    else:
        assert "shifted by one" in measured.get("skipped", "")
