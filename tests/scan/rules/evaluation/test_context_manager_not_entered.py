"""The ``context-manager-not-entered`` rule (``mlsleuth/scan/rules/evaluation/context_manager_not_entered.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"context-manager-not-entered"}


def test_context_managers_called_as_statements_are_found():
    src = """
        import torch
        from torch.cuda.amp import autocast

        def evaluate(model, loader):
            model.eval()
            torch.no_grad()  # expect: context-manager-not-entered
            return sum((model(x).argmax(1) == y).sum().item() for x, y in loader)

        def train_step(model, x, y, opt, scaler):
            autocast(dtype=torch.float16)  # expect: context-manager-not-entered
            torch.autograd.detect_anomaly()  # expect: context-manager-not-entered
            loss = torch.nn.functional.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
        """
    check(src, RULE)


def test_entered_managers_decorators_and_set_grad_enabled_stay_silent():
    src = """
        import torch

        @torch.no_grad()
        def evaluate(model, loader):
            torch.set_grad_enabled(False)
            with torch.autocast("cpu", dtype=torch.bfloat16), torch.inference_mode():
                out = [model(x) for x, _ in loader]
            torch.set_grad_enabled(True)
            ctx = torch.no_grad()
            with ctx:
                model(out[0])
            return out
        """
    check(src, RULE)
