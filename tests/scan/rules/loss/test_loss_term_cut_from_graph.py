"""The ``loss-term-cut-from-graph`` rule (``mlsleuth/scan/rules/loss/loss_term_cut_from_graph.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

TERM = {"loss-term-cut-from-graph"}


def test_regulariser_added_as_python_number():
    src = """
        def train(model, loader, opt, crit, lam=1e-4):
            for x, y in loader:
                opt.zero_grad()
                l2 = sum(p.pow(2).sum() for p in model.parameters())
                penalty = lam * l2.item()
                loss = crit(model(x), y) + penalty  # expect: loss-term-cut-from-graph
                loss.backward()
                opt.step()
        """
    check(src, TERM)
    (f,) = messages(src, "loss-term-cut-from-graph")
    assert "l2.item()" in f.message


def test_item_used_only_for_logging_is_fine():
    check(
        """
        def train(model, loader, opt, crit, lam=1e-4):
            for x, y in loader:
                opt.zero_grad()
                l2 = sum(p.pow(2).sum() for p in model.parameters())
                loss = crit(model(x), y) + lam * l2
                logged = loss.item() + 0.0
                loss.backward()
                opt.step()
                print(logged, float(l2) * lam)
        """,
        TERM,
    )
