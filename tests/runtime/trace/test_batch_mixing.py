"""`batch-mixing` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..recorded import findings_of
from .measurements import findings_for

CHECK = "batch-mixing"


def test_batch_mixing_is_found():
    found = findings_of("zoo_batch_mixing_bug", CHECK)
    assert found, "expected batch-mixing in the recorded zoo_batch_mixing_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_batch_mixing_is_not_found_without_the_bug():
    assert not findings_of("zoo_batch_mixing_fixed", CHECK)


def test_a_non_finite_leak_from_the_child_is_a_number_not_a_crash():
    # the child writes NaN as "nan"; a model whose gradients are NaN leaves batch independence undecided
    data = {"batch_dependence": {"batch": 8, "leak": "nan", "self": "nan", "sample": 0, "root": "model",
                                 "mixing_after": None, "mixing_before": "inf"}}
    assert not findings_for(CHECK, data)
    data["batch_dependence"]["leak"] = "inf"
    (hit,) = findings_for(CHECK, data)
    assert hit.location.module == "inf"  # a module name is never decoded, even one that reads like a number


@pytest.mark.slow
@pytest.mark.parametrize("layout, mixes", [("view", True), ("permute", False), ("seqfirst", False)])
def test_sequence_first_layers_are_probed_at_the_models_boundary(layout, mixes):
    """A batch_first=False Transformer layer no longer skips the check: batch-first input turned sequence-first
    with a view mixes samples (found); a transpose, or data that is sequence-first itself, does not."""
    from mlsleuth.runtime.trace import trace

    folder = Path(__file__).resolve().parents[2] / "trace_scripts" / "families"
    report = trace(folder / "seq_first_layout.py", args=[layout], steps=3, cwd=folder, timeout_s=120)
    assert report.errors == [], [e.message for e in report.errors]
    assert "batch_independence_skipped" not in report.summary.stats, report.summary.stats.get("batch_independence_skipped")
    assert bool([f for f in report.findings if f.rule == CHECK]) == mixes


@pytest.mark.slow
@pytest.mark.parametrize("layout, mixes", [("view", True), ("permute", False), ("batchfirst", False)])
def test_a_sequence_first_lstm_fed_by_a_view_is_named(layout, mixes):
    """The LSTM's own output is read in its declared (T, B, H) layout, so the mixing is localised to the LSTM
    (before it), not to the head after it; a permute, or a batch_first LSTM with trailing-axis views, is clean."""
    from mlsleuth.runtime.trace import trace

    folder = Path(__file__).resolve().parents[2] / "trace_scripts" / "families"
    report = trace(folder / "lstm_layout.py", args=[layout], steps=3, cwd=folder, timeout_s=120)
    assert report.errors == [], [e.message for e in report.errors]
    found = [f for f in report.findings if f.rule == CHECK]
    assert bool(found) == mixes
    if mixes:
        assert found[0].location.module == "lstm", found[0].message


@pytest.mark.parametrize("batch_first, mixed", [(False, True), (True, False)])
def test_a_sequence_first_rnn_fed_batch_first_data_is_probed_past_the_first_row(monkeypatch, batch_first: bool, mixed: bool):
    """A GRU left sequence-first reads the batch as time: row 0 depends on no other sample, later rows on all earlier
    ones, so the probe backpropagates from the middle row. The batch-first twin mixes nothing."""
    import torch
    from torch import nn

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[3] / "server" / "mlsleuth" / "runtime" / "child"))
    import probes

    class Clip(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(3, 8, batch_first=batch_first)
            self.fc = nn.Linear(8, 2)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.fc(out[:, -1])

    torch.manual_seed(0)
    result = probes.batch_dependence(Clip(), (torch.randn(8, 5, 3),))
    assert result["sample"] == 4 and (result["leak"] > 0) == mixed


@pytest.mark.parametrize("call, layout, mixed", [("dict", "view", True), ("dict", "permute", False),
                                                 ("keywords", "view", True), ("keywords", "permute", False)])
def test_models_called_with_a_dict_or_keywords_are_probed_through_their_main_input(monkeypatch, call, layout, mixed):
    """model(batch) and model(series=..., labels=...): the probe perturbs the main input inside the dict / keywords."""
    import torch
    from torch import nn

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[3] / "server" / "mlsleuth" / "runtime" / "child"))
    import probes

    class Clip(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(3, 8)
            self.fc = nn.Linear(8, 2)

        def forward(self, batch=None, series=None, labels=None):
            v = batch["series"] if batch is not None else series
            seq = v.view(v.shape[1], v.shape[0], v.shape[2]) if layout == "view" else v.permute(1, 0, 2)
            return self.fc(self.rnn(seq)[1][-1])

    torch.manual_seed(0)
    data = {"series": torch.randn(8, 5, 3), "labels": torch.zeros(8, dtype=torch.long)}
    model = Clip()
    wrapper, x = probes.keyword_call(model, (data,), {}) if call == "dict" else probes.keyword_call(model, (), data)
    assert x is data["series"] or torch.equal(x, data["series"])
    assert probes.unwrapped_call(wrapper) is model and probes.unwrapped_call(model) is model
    result = probes.batch_dependence(wrapper, (x,))
    assert (result["leak"] > 0) == mixed
    assert probes.keyword_call(model, (data["series"],), {}) is None  # a positional tensor needs no wrapper
