"""``diagnose`` with a ``compute_loss`` that returns named loss terms: the per-term breakdown (issue 15).

The setups are in ``tests/diagnose_cases/loss_terms.py``; the tests read their recorded child results
(``recorded/terms_*.json``; refresh with ``python tests/runtime/recorded.py terms_``). What they pin:
each term's value, gradient norm, share and the largest/smallest ratios in ``stats["loss_terms"]`` and the
summary line; the PINN checks of ``trace`` run on a PINN setup (a derivative without ``create_graph``,
terms orders of magnitude apart) and stay silent on a healthy one and on a loss that is no PINN.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from mlsleuth.runtime import loss_terms

from ..recorded import report as recorded_report

CASES = Path(__file__).resolve().parents[2] / "diagnose_cases" / "loss_terms.py"
CHILD = Path(__file__).resolve().parents[3] / "server" / "mlsleuth" / "runtime" / "child"
PINN_CHECKS = {"pinn-derivative-detached", "pinn-loss-term-no-grad", "pinn-collocation-no-grad", "pinn-coordinates-unscaled",
               "pinn-loss-terms-imbalanced", "pinn-collocation-coverage"}


def alarms(report) -> set[str]:
    return {f.rule for f in report.findings if f.severity in ("error", "warning")}


def test_healthy_pinn_gets_a_named_breakdown_and_no_finding():
    report = recorded_report("terms_pinn_poisson")
    assert not report.errors and not alarms(report), alarms(report)
    terms = report.summary.stats["loss_terms"]
    assert [r["term"] for r in terms["first"]] == ["pde", "boundary"]  # the names compute_loss gave, in its order
    assert terms["first_step"] == 0 and terms["last_step"] > 0
    for row in terms["first"] + terms["last"]:
        assert row["reaches_parameters"] and row["grad_norm"] > 0 and 0 <= row["share"] <= 1
    assert sum(r["share"] for r in terms["first"]) == pytest.approx(1.0)
    assert terms["last"][0]["value"] < terms["first"][0]["value"]  # the residual falls while the network trains
    assert terms["first_ratio"]["value"] > 1 and terms["first_ratio"]["grad_norm"] > 1
    assert "loss terms at step" in report.summary.text and "pde" in report.summary.text


def test_derivative_without_create_graph_is_found_by_diagnose():
    report = recorded_report("terms_pinn_poisson_detached")
    assert "pinn-derivative-detached" in alarms(report)
    found = next(f for f in report.findings if f.rule == "pinn-derivative-detached")
    line = next(i for i, text in enumerate(CASES.read_text(encoding="utf-8").splitlines(), 1) if "create_graph=create_graph" in text)
    assert found.location.path.endswith("loss_terms.py") and found.location.line == line  # the second derivative's call
    pde = next(r for r in report.summary.stats["loss_terms"]["first"] if r["term"] == "pde")
    assert pde["grad_norm"] == 0.0  # the named breakdown shows the PDE term carries no gradient


def test_imbalanced_terms_are_found_by_diagnose():
    report = recorded_report("terms_pinn_poisson_imbalanced")
    assert alarms(report) & PINN_CHECKS == {"pinn-loss-terms-imbalanced"}
    found = next(f for f in report.findings if f.rule == "pinn-loss-terms-imbalanced")
    assert "pde" in found.message and "boundary" in found.message


def test_terms_of_a_loss_that_is_no_pinn_are_reported_without_pinn_checks():
    report = recorded_report("terms_regression_with_penalty")
    assert not report.errors and not alarms(report), alarms(report)
    terms = report.summary.stats["loss_terms"]
    assert [r["term"] for r in terms["first"]] == ["mse", "weight_penalty"]
    assert terms["first"][0]["share"] > 0.9  # the penalty is a small part of the loss: reported, not judged


def test_summary_and_text_of_hand_made_breakdowns():
    def b(step, pde, bc, g_pde=1.0, g_bc=1.0):
        return {"step": step, "total": pde + bc, "split": True, "terms": [
            {"name": "pde", "value": pde, "grad_norm": g_pde, "reaches_parameters": True, "requires_grad": True},
            {"name": "bc", "value": bc, "grad_norm": g_bc, "reaches_parameters": True, "requires_grad": True}]}

    assert loss_terms.summary([]) is None
    assert loss_terms.summary([{"step": 0, "split": False, "terms": []}]) is None
    one = loss_terms.summary([b(0, 100.0, 1.0, 10.0, 0.1)])
    assert "last" not in one and one["first_ratio"] == {"value": 100.0, "grad_norm": 100.0}
    two = loss_terms.summary([b(0, 100.0, 1.0), b(9, 1.0, 1.0)])
    assert two["last_step"] == 9 and two["last_ratio"]["value"] == 1.0
    assert loss_terms.text(two).startswith("loss terms at step 9: pde 1")
    assert loss_terms.ratio([0.0, 5.0]) is None  # a zero term has no ratio


def test_compute_loss_dict_contract():
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(CHILD))
    from setup_contract import SetupError, sum_terms

    total = sum_terms({"a": torch.tensor(1.5), "b": torch.tensor([2.0])}, "setup()")
    assert float(total) == 3.5 and total.dim() == 0
    with pytest.raises(SetupError, match="empty dict"):
        sum_terms({}, "setup()")
    with pytest.raises(SetupError, match=r"\['vector'\].*one-element"):
        sum_terms({"ok": torch.tensor(1.0), "vector": torch.ones(3)}, "setup()")
    with pytest.raises(SetupError, match="one-element"):
        sum_terms({"count": torch.tensor(3)}, "setup()")  # an integer tensor is no loss term


@pytest.mark.slow
def test_live_bad_terms_is_a_setup_error():
    from mlsleuth.runtime.diagnose import diagnose

    report = diagnose(f"{CASES}:bad_terms", steps=10, ablation_steps=10, cwd=CASES.parent, timeout_s=120)
    assert [e.kind for e in report.errors] == ["setup-error"]
    assert "per_sample" in report.errors[0].message and "scalar loss term" in report.errors[0].message


@pytest.mark.slow
def test_live_named_terms_match_the_recording():
    from mlsleuth.runtime.diagnose import diagnose

    report = diagnose(f"{CASES}:pinn_poisson", steps=150, ablation_steps=60, cwd=CASES.parent, timeout_s=240)
    assert not report.errors and not alarms(report)
    assert [r["term"] for r in report.summary.stats["loss_terms"]["first"]] == ["pde", "boundary"]
