"""The ``closure-reads-loop-variable`` rule (``mlsleuth/scan/rules/training_loop/closure_reads_loop_variable.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"closure-reads-loop-variable"}


def test_the_premise_closures_see_the_last_value():
    fns = [lambda: i for i in range(3)]
    assert [f() for f in fns] == [2, 2, 2]


def test_hooks_lr_lambdas_and_kept_callbacks_are_found():
    src = """
        import threading
        import torch
        from torch.optim.lr_scheduler import LambdaLR

        def capture(model, layers):
            feats = {}
            for name, module in model.named_modules():
                if name in layers:
                    module.register_forward_hook(
                        lambda m, inp, out: feats.__setitem__(name, out.detach()))  # expect: closure-reads-loop-variable
            return feats

        def schedules(optimizer, decays):
            lambdas = []
            for group, decay in zip(optimizer.param_groups, decays):
                lambdas.append(lambda epoch: decay ** epoch)  # expect: closure-reads-loop-variable
            return LambdaLR(optimizer, lr_lambda=lambdas)

        def grad_norms(model, store):
            for pname, p in model.named_parameters():
                def record(grad):  # expect: closure-reads-loop-variable
                    store[pname] = grad.norm().item()
                p.register_hook(record)

        def save_async(states, paths):
            for k in range(len(states)):
                threading.Thread(target=lambda: torch.save(states[k], paths[k])).start()  # expect: closure-reads-loop-variable
        """
    check(src, RULE)


def test_bound_values_and_closures_used_at_once_stay_silent():
    src = """
        import functools
        from torch.optim.lr_scheduler import LambdaLR

        def make_hook(name, feats):
            def hook(m, inp, out):
                feats[name] = out.detach()
            return hook

        def capture(model, feats):
            for name, module in model.named_modules():
                module.register_forward_hook(lambda m, inp, out, name=name: feats.__setitem__(name, out))
                module.register_forward_pre_hook(functools.partial(print, name))
                module.register_forward_hook(make_hook(name, feats))

        def ranked(groups, scores):
            out = []
            for g in groups:
                out.append(sorted(g, key=lambda item: scores[item]))
                best = max(g, key=lambda item: scores[item] - len(g))
                out.append(best)
            return out

        def schedules(optimizer, warmup):
            lambdas = []
            for group in optimizer.param_groups:
                lambdas.append(lambda epoch: min(1.0, (epoch + 1) / warmup))
            return LambdaLR(optimizer, lr_lambda=lambdas)
        """
    check(src, RULE)
