"""The ``best-state-dict-by-reference`` rule (``mlsleuth/scan/rules/evaluation/best_state_dict_by_reference.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

BEST = "best-state-dict-by-reference"


def test_best_state_by_reference_restored_after_loop():
    src = """
    def fit(model, opt, epochs, evaluate, train_one_epoch):
        best_acc, best_state = 0.0, None
        for epoch in range(epochs):
            train_one_epoch(model, opt)
            acc = evaluate(model)
            if acc > best_acc:
                best_acc = acc
                best_state = model.state_dict()  # expect: best-state-dict-by-reference
        model.load_state_dict(best_state)
        return model
    """
    (f,) = findings(src, BEST)
    check(src, {BEST})
    assert "load_state_dict" in f.observation


def test_shallow_copy_on_self_attribute_is_flagged():
    src = """
    import torch

    class Trainer:
        def run(self, epochs):
            for epoch in range(epochs):
                loss = self.step()
                if loss < self.best_loss:
                    self.best_loss = loss
                    self.best_weights = self.model.state_dict().copy()  # expect: best-state-dict-by-reference
            torch.save(self.best_weights, "best.pt")
    """
    (f,) = findings(src, BEST)
    check(src, {BEST})
    assert "shallow" in f.message


def test_deepcopy_clone_and_immediate_save_are_fine():
    src = """
    import copy
    import torch

    def fit(model, epochs, evaluate):
        best, best_state, best_clone = 0.0, None, None
        for epoch in range(epochs):
            acc = evaluate(model)
            if acc > best:
                best = acc
                best_state = copy.deepcopy(model.state_dict())
                best_clone = {k: v.detach().clone() for k, v in model.state_dict().items()}
                best_ref = model.state_dict()
                torch.save(best_ref, "best.pt")
        model.load_state_dict(best_state)
        return best_clone
    """
    check(src, {BEST})


def test_tutorial_style_best_weights_returned_after_loop():
    src = """
    def train_model(model, criterion, optimizer, num_epochs=25):
        best_model_wts = model.state_dict()
        best_acc = 0.0
        for epoch in range(num_epochs):
            for phase in ["train", "val"]:
                epoch_acc = run_phase(model, phase)
                if phase == "val" and epoch_acc > best_acc:
                    best_acc = epoch_acc
                    best_model_wts = model.state_dict()  # expect: best-state-dict-by-reference
        model.load_state_dict(best_model_wts)
        return model
    """
    check(src, {BEST})


def test_best_model_kept_as_the_model_object():
    src = """
    def fit(model, opt, loader, epochs, validate):
        best_loss, best_model = float("inf"), None
        for epoch in range(epochs):
            model.train()
            for x, y in loader:
                opt.zero_grad()
                model(x).sub(y).pow(2).mean().backward()
                opt.step()
            val = validate(model)
            if val < best_loss:
                best_loss, best_model = val, None
                best_model = model  # expect: best-state-dict-by-reference
        return best_model
    """
    (f,) = findings(src, BEST)
    check(src, {BEST})
    assert "model object itself" in f.message


def test_best_score_and_best_epoch_names_are_not_snapshots():
    src = """
    def fit(model, epochs, validate):
        best_epoch, best_score = 0, 0.0
        for epoch in range(epochs):
            score = validate(model)
            if score > best_score:
                best_score = score
                best_epoch = epoch
        return best_epoch
    """
    check(src, {BEST})
