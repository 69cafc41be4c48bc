"""The ``early-stop-counter-not-reset`` rule (``mlsleuth/scan/rules/evaluation/early_stop_counter_not_reset.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"early-stop-counter-not-reset"}


def test_patience_counters_that_never_reset():
    src = """
    import copy
    import torch

    def fit(model, loaders, patience=12):
        best_vloss = float("inf")
        count_early_stop = 0
        for epoch in range(500):
            vloss = validate(model, loaders["val"])
            if vloss < best_vloss:
                best_vloss = vloss
                best_model = copy.deepcopy(model)
            else:
                count_early_stop += 1  # expect: early-stop-counter-not-reset
            if count_early_stop >= patience:
                break
        return best_model

    class EarlyStopping:
        def __init__(self, patience=7, delta=0.0):
            self.patience, self.delta = patience, delta
            self.counter, self.best_score, self.early_stop = 0, None, False

        def __call__(self, val_loss, model):
            score = -val_loss
            if self.best_score is None:
                self.best_score = score
            elif score < self.best_score + self.delta:
                self.counter += 1  # expect: early-stop-counter-not-reset
                if self.counter >= self.patience:
                    self.early_stop = True
            else:
                self.best_score = score
                torch.save(model.state_dict(), "checkpoint.pt")
    """
    check(src, RULE)


def test_counters_reset_on_improvement_are_fine():
    src = """
    import torch

    def fit(model, loaders, args):
        best_acc, bad_epochs = 0.0, 0
        for epoch in range(args.epochs):
            acc = validate(model, loaders["val"])
            if acc > best_acc:
                best_acc = acc
                bad_epochs = 0
                torch.save(model.state_dict(), "best.pt")
            else:
                bad_epochs += 1
                if bad_epochs >= args.patience:
                    break

    class EarlyStopping:
        def __call__(self, val_loss, model):
            score = -val_loss
            if self.best_score is None:
                self.best_score = score
            elif score < self.best_score + self.delta:
                self.counter += 1
                if self.counter >= self.patience:
                    self.early_stop = True
            else:
                self.best_score = score
                self.counter = 0

    def count_improvements(history):
        best, improvements, epochs = None, 0, 0
        for value in history:
            if best is None or value < best:
                best = value
            else:
                epochs += 1
        return epochs
    """
    check(src, RULE)
