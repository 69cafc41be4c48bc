"""Causal leakage without a setup function: the trace child probes its first (model, batch) pair when the
targets are the inputs shifted by one, and check reports the result as a clue or says why it did not run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mlsleuth.cli import main
from mlsleuth.report import Report
from mlsleuth.runtime.common import CHILD_DIR
from mlsleuth.triage.run import TriagePlan, combine

from .projects import make

TINY_LM = '''\
import torch
from torch import nn

torch.manual_seed(0)
V, T, D = 16, 8, 32
CAUSAL = {causal}


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V, D)
        self.pos = nn.Embedding(T, D)
        self.block = nn.TransformerEncoderLayer(D, 2, 64, dropout=0.0, batch_first=True)
        self.head = nn.Linear(D, V)

    def forward(self, idx):
        h = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        mask = nn.Transformer.generate_square_subsequent_mask(idx.shape[1]) if CAUSAL else None
        return self.head(self.block(h, src_mask=mask, is_causal=CAUSAL))


data = torch.randint(0, V, (2000,))
model = TinyLM()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(100):
    ix = torch.randint(0, len(data) - T - 1, (16,))
    x = torch.stack([data[i:i + T] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + T] for i in ix])
    loss = nn.functional.cross_entropy(model(x).view(-1, V), y.view(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
'''


def _plan(tmp_path: Path) -> TriagePlan:
    return TriagePlan(root=tmp_path, symptom=None, max_clues=5, entry=None, run_skipped=None)


def _trace_report(causal: dict) -> Report:
    return Report(tool="trace").finalize(stats={"steps_traced": 3, "status": "max-steps", "causal_leakage": causal})


def test_a_measured_leak_becomes_a_runtime_clue(tmp_path: Path) -> None:
    measured = {"time_steps": 8, "t": 4, "future_grad": 0.2, "past_grad": 0.7, "first_leaking_step": 5, "via": "embedding output",
                "root": "model", "reason": "the loss targets are the inputs shifted by one position (next-token prediction)"}
    report = combine(_plan(tmp_path), Report(tool="scan").finalize(), _trace_report(measured))
    assert [f.rule for f in report.findings] == ["causal-leakage"]
    clue = report.findings[0]
    assert clue.location.module == "model" and clue.measurements["evidence"][0]["kind"] == "runtime"
    assert "shifted by one" in clue.observation
    assert all(n["check"] != "causal-leakage" for n in report.summary.stats["not_run"])


def test_a_causal_model_draws_no_clue_and_a_skip_is_reported_with_its_reason(tmp_path: Path) -> None:
    clean = {"time_steps": 8, "t": 4, "future_grad": 0.0, "past_grad": 0.7, "first_leaking_step": None, "via": "embedding output"}
    report = combine(_plan(tmp_path), Report(tool="scan").finalize(), _trace_report(clean))
    assert report.findings == []
    skipped = combine(_plan(tmp_path), Report(tool="scan").finalize(),
                      _trace_report({"skipped": "the loss targets are not one token per input position"}))
    reasons = {n["check"]: n["reason"] for n in skipped.summary.stats["not_run"]}
    assert reasons["causal-leakage"] == "not run on the traced model: the loss targets are not one token per input position"


def test_next_token_targets_are_recognised_and_other_targets_are_not(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    monkeypatch.syspath_prepend(str(CHILD_DIR))
    import trace_causal

    x = torch.randint(0, 50, (4, 9))
    shifted = torch.cat([x[:, 1:], torch.zeros(4, 1, dtype=x.dtype)], dim=1)
    assert trace_causal._why_not_next_token(x, shifted.reshape(-1)) is None  # noqa: SLF001
    assert "shifted by one" in trace_causal._why_not_next_token(x, x)  # noqa: SLF001 - a tagger's targets, aligned
    assert "one token per input position" in trace_causal._why_not_next_token(x, torch.zeros(4, dtype=torch.long))  # noqa: SLF001
    assert "(batch, time)" in trace_causal._why_not_next_token(torch.randn(4, 9), shifted)  # noqa: SLF001


@pytest.mark.slow
@pytest.mark.parametrize("causal", [False, True])
def test_check_finds_a_missing_causal_mask_from_the_traced_run(tmp_path: Path, capsys, causal: bool) -> None:
    pytest.importorskip("torch")
    root = make(tmp_path / "lm", {"train.py": TINY_LM.format(causal=causal)})
    main(["check", str(root), "--steps", "3", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    rules = [f["rule"] for f in report["findings"]]
    measured = report["summary"]["stats"]["trace_causal_leakage"]
    assert "skipped" not in measured
    if causal:
        assert "causal-leakage" not in rules and measured["future_grad"] == 0
    else:
        assert rules[0] == "causal-leakage"
