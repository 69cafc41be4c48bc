"""The ``method-referenced-not-called`` rule (``mlsleuth/scan/rules/training_loop/method_referenced_not_called.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"method-referenced-not-called"}


def test_methods_named_without_a_call_are_found():
    src = """
        import torch

        def evaluate(model, loader):
            model.eval  # expect: method-referenced-not-called
            with torch.no_grad():
                return sum(model(x).argmax(1).eq(y).sum().item() for x, y in loader)

        def train_epoch(model, loader, opt, sched, sampler, epoch, ema):
            model.train  # expect: method-referenced-not-called
            sampler.set_epoch  # expect: method-referenced-not-called
            for x, y in loader:
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward  # expect: method-referenced-not-called
                opt.step()
                ema.update  # expect: method-referenced-not-called
            sched.step  # expect: method-referenced-not-called
        """
    check(src, RULE)


def test_calls_properties_and_attribute_reads_stay_silent():
    src = """
        import torch

        def run(model, loader, opt, sched, trainer):
            model.eval()
            model.train(False)
            if model.training:
                pass
            step = sched.step
            callbacks = [model.eval, model.train]
            trainer.state.epoch
            model.weight
            for x, y in loader:
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
            step()
            return callbacks
        """
    check(src, RULE)


def test_attribute_reads_outside_training_code_stay_silent():
    src = """
        import numpy as np

        ar_iter = np.lib.Arrayterator(np.arange(10))
        ar_iter.step
        ar_iter.shape
        """
    check(src, RULE)
