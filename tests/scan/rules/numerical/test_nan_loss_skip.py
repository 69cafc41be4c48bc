"""The ``nan-loss-skip`` rule (``mlsleuth/scan/rules/numerical/nan_loss_skip.py``)."""

from __future__ import annotations

from scan.helpers import check, findings


def test_nan_loss_skip_is_info():
    src = """
    import math
    import torch

    def train(model, loader, opt, crit, log):
        for x, y in loader:
            loss = crit(model(x), y)
            if torch.isnan(loss).any():  # expect: nan-loss-skip
                log.warning("nan loss, skipping")
                continue
            if not math.isfinite(loss.item()):  # expect: nan-loss-skip
                continue
            loss.backward()
            opt.step()
    """
    check(src, {"nan-loss-skip"})
    got = findings(src, "nan-loss-skip")
    assert {f.severity for f in got} == {"info"}


def test_nan_loss_that_stops_training_or_skips_bad_inputs_is_fine():
    src = """
    import torch

    def train(model, loader, opt, crit):
        for x, y in loader:
            if torch.isnan(x).any():
                continue
            loss = crit(model(x), y)
            if torch.isnan(loss):
                raise FloatingPointError("loss became NaN")
            loss.backward()
            opt.step()
    """
    check(src, {'nan-loss-skip'})
