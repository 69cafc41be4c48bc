"""The shared training-loop model: events, order, nesting, inlining, object kinds."""

from __future__ import annotations

import ast
import textwrap

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.training_step_model import (
    loop_model,
    scheduler_unit,
    step_loops,
)


def model_of(source: str):
    ctx = FileContext.from_source(textwrap.dedent(source))
    return ctx, loop_model(ctx)


def trace_of(model, name: str):
    for trace in model.traces:
        if getattr(trace.root, "name", "<module>") == name:
            return trace
    raise AssertionError(f"no trace for {name}: {[getattr(t.root, 'name', '<module>') for t in model.traces]}")


def kinds_lines(trace):
    return [(e.kind, e.line) for e in trace.events]


def test_events_in_order_with_aliases_and_objects():
    _ctx, model = model_of(
        """
        import torch
        import torch.optim as O
        from torch.optim.lr_scheduler import OneCycleLR as OC

        def main(model, loader):
            opt = O.SGD(model.parameters(), lr=0.1)
            sched = OC(opt, max_lr=1.0, total_steps=100)
            for x, y in loader:
                opt.zero_grad(set_to_none=True)
                loss = model(x).sum()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                sched.step()
        """
    )
    trace = trace_of(model, "main")
    assert kinds_lines(trace) == [("zero_grad", 10), ("backward", 12), ("clip", 13), ("step", 14), ("sched_step", 15)]
    step = trace.events[3]
    assert step.obj is not None and step.obj.kind == "optimizer" and step.obj.name == "SGD" and step.obj.line == 7
    sched = trace.events[4]
    assert sched.obj.kind == "scheduler" and sched.obj.name == "OneCycleLR"
    assert trace.events[0].key == step.key  # the same optimizer object
    assert step_loops(trace) == [trace.events[0].loops[-1]]


def test_helper_inlined_with_parameters_mapped_and_nesting():
    _ctx, model = model_of(
        """
        import torch

        def train_epoch(net, data, optimizer):
            net.train()
            for xb, yb in data:
                loss = net(xb).mean()
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()

        def fit(model, loader, epochs):
            opt = torch.optim.Adam(model.parameters())
            for epoch in range(epochs):
                train_epoch(model, loader, opt)
                model.eval()
        """
    )
    trace = trace_of(model, "fit")
    assert [e.kind for e in trace.events] == ["train", "backward", "step", "zero_grad", "eval"]
    train, _backward, step, _zero, _ev = trace.events
    assert train.target == "model" and train.via and train.via[0].lineno == 15
    assert step.obj is not None and step.obj.name == "Adam"  # `optimizer` parameter mapped to `opt`
    assert len(step.loops) == 2 and step.loops[0].lineno == 14 and step.loops[1].lineno == 6
    assert trace.loop_parent[step.loops[1]] is step.loops[0]
    assert "called at line 15" in step.where()
    # the helper has its own trace too, with one loop
    own = trace_of(model, "train_epoch")
    assert [len(e.loops) for e in own.events if e.kind == "step"] == [1]


def test_methods_of_one_class_and_self_attributes():
    _ctx, model = model_of(
        """
        from torch import optim
        from torch.cuda.amp import GradScaler

        class Trainer:
            def __init__(self, model):
                self.model = model
                self.opt = optim.AdamW(model.parameters(), lr=3e-4)
                self.scaler = GradScaler()

            def step(self, batch):
                loss = self.model(batch)
                self.scaler.scale(loss).backward()
                self.scaler.unscale_(self.opt)
                self.scaler.step(self.opt)
                self.scaler.update()
                self.opt.zero_grad()

            def train_epoch(self, loader):
                for batch in loader:
                    self.step(batch)
        """
    )
    trace = trace_of(model, "train_epoch")
    assert [e.kind for e in trace.events] == ["backward", "unscale", "step", "scaler_update", "zero_grad"]
    backward, unscale, step, update, zero = trace.events
    assert backward.scaled and step.scaled
    assert step.obj.name == "AdamW" and zero.obj.name == "AdamW" and step.key == zero.key == unscale.key
    assert update.obj.kind == "scaler"


def test_guards_and_accumulation_and_branches():
    _ctx, model = model_of(
        """
        def train(model, loader, opt, accum):
            for i, batch in enumerate(loader):
                loss = model(batch) / accum
                loss.backward()
                if (i + 1) % accum == 0:
                    opt.step()
                    opt.zero_grad()
                else:
                    pass
        """
    )
    trace = trace_of(model, "train")
    step = next(e for e in trace.events if e.kind == "step")
    guards = step.guarded_within(step.loops[-1])
    assert len(guards) == 1 and ast.unparse(guards[0].test) == "(i + 1) % accum == 0"
    backward = next(e for e in trace.events if e.kind == "backward")
    assert backward.guards == ()


def test_lbfgs_closure_is_inlined_before_the_step():
    _ctx, model = model_of(
        """
        import torch
        def fit(model, x, y):
            opt = torch.optim.LBFGS(model.parameters())
            for _ in range(10):
                def closure():
                    opt.zero_grad()
                    loss = ((model(x) - y) ** 2).mean()
                    loss.backward()
                    return loss
                opt.step(closure)
        """
    )
    trace = trace_of(model, "fit")
    assert [(e.kind, e.closure) for e in trace.events] == [("zero_grad", True), ("backward", True), ("step", False)]


def test_no_grad_context_lightning_and_accelerate():
    _ctx, model = model_of(
        """
        import torch
        import lightning as L

        class Lit(L.LightningModule):
            def training_step(self, batch, idx):
                opt = self.optimizers()
                loss = self.compute(batch)
                self.manual_backward(loss)
                opt.step()

        def run(accelerator, model, loader, optimizer):
            for batch in loader:
                with accelerator.accumulate(model):
                    loss = model(batch)
                    accelerator.backward(loss)
                    optimizer.step()
                    optimizer.zero_grad()
            with torch.no_grad():
                model.eval()
        """
    )
    lit = trace_of(model, "training_step")
    assert [e.kind for e in lit.events] == ["backward", "step"]
    assert lit.events[1].obj is not None and lit.events[1].loops == (lit.root,)
    run = trace_of(model, "run")
    backward = run.events[0]
    assert backward.kind == "backward" and "accumulate" in backward.contexts and ast.unparse(backward.loss) == "loss"
    assert run.events[-1].kind == "eval" and "no_grad" in run.events[-1].contexts


def test_grad_set_to_none_and_trainer_train_ignored():
    _ctx, model = model_of(
        """
        def loop(model, opt, trainer, data):
            trainer.train()
            for x in data:
                for p in model.parameters():
                    p.grad = None
                model(x).sum().backward()
                opt.step()
        """
    )
    trace = trace_of(model, "loop")
    assert [e.kind for e in trace.events] == ["zero_grad", "backward", "step"]


def test_scheduler_units():
    ctx = FileContext.from_source(
        textwrap.dedent(
            """
            from torch.optim import lr_scheduler as S
            a = S.StepLR(opt, step_size=30)
            b = S.StepLR(opt, step_size=20000)
            c = S.CosineAnnealingLR(opt, T_max=epochs)
            d = S.CosineAnnealingLR(opt, T_max=len(loader) * epochs)
            e = S.OneCycleLR(opt, max_lr=1.0, total_steps=1000)
            f = S.OneCycleLR(opt, max_lr=1.0, epochs=10, steps_per_epoch=1)
            g = S.ReduceLROnPlateau(opt)
            h = S.LambdaLR(opt, lambda s: 1.0)
            """
        )
    )
    model = loop_model(ctx)
    units = {}
    for stmt in ctx.tree.body[1:]:
        info = model.object_of(stmt.targets[0])
        assert info is not None and info.kind == "scheduler"
        units[stmt.targets[0].id] = scheduler_unit(ctx, info.construction, info.name)
    assert units == {"a": "epoch", "b": "step", "c": "epoch", "d": "step", "e": "step", "f": "epoch", "g": "epoch", "h": None}


def test_library_code_without_training_has_no_traces():
    _ctx, model = model_of(
        """
        class Buffer:
            def step(self):
                return self.items.pop()

        def helper(xs):
            return [x + 1 for x in xs]
        """
    )
    assert all(e.kind != "backward" for t in model.traces for e in t.events)


def test_unusual_syntax_does_not_crash_any_rule():
    from mlsleuth.scan.analyze import analyze_source

    source = textwrap.dedent(
        """
        import torch
        import torch.nn as nn

        async def agen(model, aloader, opt):
            async for x in aloader:
                async with ctx():
                    opt.zero_grad()
                    (loss := model(x).sum()).backward()
                    opt.step()

        def recurse(model, opt, n):
            if n:
                recurse(model, opt, n - 1)
            for x in range(n):
                match x:
                    case 0:
                        opt.step()
                    case _:
                        model(x).backward()

        def star(model, opt, data):
            for x in data:
                try:
                    model(x).backward()
                    opt.step()
                except* ValueError:
                    pass

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = [*map(nn.Linear, [1, 2], [2, 3])]
                self.opt = torch.optim.SGD(self.parameters(), lr=0.1)

            def step(self, x):
                self.step(x)
                self.opt.step(lambda: self(x).sum().backward())
                (lambda: 0)().backward()
                [a for a in x][0].step()
                getattr(self, "opt").step()
        """
    )
    result = analyze_source(source, "weird.py")
    assert result.errors == [], [e.message + (e.detail or "") for e in result.errors]


def test_comprehension_counts_as_a_loop():
    _ctx, model = model_of(
        """
        import torch

        def step(model, batch, opt):
            opt.zero_grad()
            model(batch).sum().backward()
            opt.step()
            return 0.0

        def fit(model, data, epochs):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
            for epoch in range(epochs):
                losses = [step(model, b, opt) for b in data if b is not None]
                sched.step()
        """
    )
    trace = trace_of(model, "fit")
    step = next(e for e in trace.events if e.kind == "step")
    assert len(step.loops) == 2 and isinstance(step.loops[1], ast.ListComp)
    assert trace.loop_parent[step.loops[1]] is step.loops[0]
    sched = next(e for e in trace.events if e.kind == "sched_step")
    assert sched.loops == (step.loops[0],)


def test_optimizer_handed_to_an_unreadable_training_helper_and_train_with_arguments_is_a_call():
    _ctx, model = model_of(
        """
        import torch
        import train_and_test as tnt
        from engine import save_checkpoint

        net = torch.nn.Linear(2, 2)
        opt = torch.optim.Adam(net.parameters())
        for epoch in range(3):
            tnt.train(model=net, dataloader=None, optimizer=opt)
            tnt.train(net, None, opt)
            save_checkpoint(net, opt)
            net.train()
            net.train(False)
        """
    )
    events = [(e.kind, e.line, e.target) for e in trace_of(model, "<module>").events]
    assert events == [
        ("hands_optimizer", 9, "opt"),
        ("hands_optimizer", 10, "opt"),
        ("train", 12, "net"),
        ("eval", 13, "net"),
    ]


def test_readable_helper_is_judged_by_its_own_events_not_as_a_hand_off():
    _ctx, model = model_of(
        """
        import torch

        def train_log(opt, epoch):
            print(epoch, opt.param_groups[0]["lr"])

        net = torch.nn.Linear(2, 2)
        opt = torch.optim.Adam(net.parameters())
        sched = torch.optim.lr_scheduler.StepLR(opt, 1)
        for epoch in range(3):
            train_log(opt, epoch)
            sched.step()
        """
    )
    assert [e.kind for e in trace_of(model, "<module>").events] == ["sched_step"]


def test_scheduler_built_by_a_helper_is_known_with_its_constructor():
    ctx, model = model_of(
        """
        import torch
        from torch.optim.lr_scheduler import LambdaLR, StepLR

        def warmup(optimizer, total_steps):
            return LambdaLR(optimizer, lambda s: min(1.0, s / total_steps))

        def get_scheduler(name, optimizer, total_steps):
            if name == "warmup":
                return warmup(optimizer, total_steps)
            sched = StepLR(optimizer, 30)
            return sched

        def main(model, loader, args):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = get_scheduler(args.sched, opt, total_steps=args.epochs)
            for x in loader:
                opt.step()
                scheduler.step()
        """
    )
    sched = next(e for e in trace_of(model, "main").events if e.kind == "sched_step")
    assert sched.obj is not None and sched.obj.kind == "scheduler"
    assert sched.obj.name == ""  # LambdaLR or StepLR, by the name given at run time
    assert sched.obj.factory is not None and ctx.segment(sched.obj.factory.func) == "get_scheduler"
    assert sched.obj.construction is not None and ctx.segment(sched.obj.construction.func) == "LambdaLR"
