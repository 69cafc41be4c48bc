"""Training-loop rules: zero_grad/backward/step order, schedulers, accumulation, clipping, except, loss values."""

from __future__ import annotations

from rules_b_helpers import check, messages

ZG = {"missing-zero-grad", "zero-grad-between-backward-and-step", "step-before-backward"}


# -- missing-zero-grad --------------------------------------------------------------------------------


def test_missing_zero_grad_positive_with_alias_and_message():
    src = """
        import torch.optim as O

        def train(model, loader, crit):
            opt = O.SGD(model.parameters(), lr=0.1)
            for x, y in loader:
                loss = crit(model(x), y)
                loss.backward()
                opt.step()  # expect: missing-zero-grad
        """
    check(src, ZG)
    (f,) = messages(src, "missing-zero-grad")
    assert "backward at line 8" in f.message and "opt.step() at line 9" in f.message
    assert "grad.norm()" in f.next_test


def test_missing_zero_grad_when_cleared_only_once_per_epoch():
    src = """
        import torch
        def fit(model, loader, epochs):
            optimizer = torch.optim.Adam(model.parameters())
            for epoch in range(epochs):
                optimizer.zero_grad()
                for x, y in loader:
                    model(x, y).backward()
                    optimizer.step()  # expect: missing-zero-grad
        """
    check(src, ZG)
    (f,) = messages(src, "missing-zero-grad")
    assert "outside this loop" in f.message and "line 6" in f.message


def test_zero_grad_variants_are_accepted():
    # top of loop, model.zero_grad, set_to_none, p.grad = None, at the end, in a helper
    check(
        """
        import torch
        def a(model, loader, opt):
            for x in loader:
                opt.zero_grad(set_to_none=True)
                model(x).sum().backward()
                opt.step()

        def b(model, loader, opt):
            for x in loader:
                model.zero_grad()
                model(x).sum().backward()
                opt.step()

        def c(model, loader, opt):
            for x in loader:
                for p in model.parameters():
                    p.grad = None
                model(x).sum().backward()
                opt.step()

        def clear(opt):
            opt.zero_grad()

        def d(model, loader, opt):
            for x in loader:
                model(x).sum().backward()
                opt.step()
                clear(opt)
        """,
        ZG,
    )


def test_accumulation_zero_grad_every_n_steps_is_fine():
    check(
        """
        def train(model, loader, optimizer, accum):
            for i, (x, y) in enumerate(loader):
                loss = model(x, y) / accum
                loss.backward()
                if (i + 1) % accum == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        ZG,
    )


def test_lbfgs_closure_zero_grad_is_fine():
    check(
        """
        import torch
        def fit(model, x, y):
            opt = torch.optim.LBFGS(model.parameters(), lr=1)
            for _ in range(20):
                def closure():
                    opt.zero_grad()
                    loss = ((model(x) - y) ** 2).mean()
                    loss.backward()
                    return loss
                opt.step(closure)
        """,
        ZG,
    )


# -- zero-grad-between-backward-and-step ----------------------------------------------------------------


def test_zero_grad_between_backward_and_step_in_helper_method():
    src = """
        from torch import optim

        class Trainer:
            def __init__(self, model):
                self.model = model
                self.opt = optim.Adam(model.parameters(), lr=1e-3)

            def update(self, loss):
                loss.backward()
                self.opt.zero_grad()  # expect: zero-grad-between-backward-and-step
                self.opt.step()

            def fit(self, loader):
                for x, y in loader:
                    self.update(self.model(x, y))
        """
    check(src, ZG)
    (f,) = messages(src, "zero-grad-between-backward-and-step")
    assert "zero_grad at line 11" in f.message and "backward at line 10" in f.message and "line 12" in f.message


def test_gan_two_optimizers_not_confused():
    check(
        """
        import torch
        def train(G, D, loader):
            opt_g = torch.optim.Adam(G.parameters())
            opt_d = torch.optim.Adam(D.parameters())
            for real in loader:
                opt_d.zero_grad()
                d_loss = D(real).mean() - D(G(real).detach()).mean()
                d_loss.backward()
                opt_g.zero_grad()
                opt_d.step()
                g_loss = -D(G(real)).mean()
                g_loss.backward()
                opt_g.step()
        """,
        ZG,
    )


# -- step-before-backward --------------------------------------------------------------------------------


def test_step_before_backward_with_zero_grad_first():
    src = """
        import torch
        def train(model, loader):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
            for x, y in loader:
                optimizer.zero_grad()
                optimizer.step()  # expect: step-before-backward
                loss = model(x, y)
                loss.backward()
        """
    check(src, ZG)
    (f,) = messages(src, "step-before-backward")
    assert "zero_grad at line 6" in f.message and "does not learn" in f.message


def test_step_at_top_guarded_by_condition_is_not_flagged():
    check(
        """
        def train(model, loader, opt, k):
            for i, x in enumerate(loader):
                if i > 0 and i % k == 0:
                    opt.step()
                    opt.zero_grad()
                (model(x).sum() / k).backward()
        """,
        ZG,
    )


# -- schedulers ----------------------------------------------------------------------------------------

SCHED = {"scheduler-before-optimizer", "epoch-scheduler-stepped-per-batch", "step-scheduler-stepped-per-epoch"}


def test_scheduler_before_optimizer_at_top_of_epoch():
    src = """
        import torch
        from torch.optim.lr_scheduler import StepLR

        def fit(model, loader, epochs):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = StepLR(opt, step_size=10)
            for epoch in range(epochs):
                sched.step()  # expect: scheduler-before-optimizer
                for x, y in loader:
                    opt.zero_grad()
                    model(x, y).backward()
                    opt.step()
        """
    check(src, SCHED)
    (f,) = messages(src, "scheduler-before-optimizer")
    assert "line 9" in f.message and "line 13" in f.message


def test_epoch_scheduler_stepped_per_batch_in_helper():
    src = """
        import torch.optim as optim

        def train_one_epoch(model, loader, optimizer, scheduler):
            for x, y in loader:
                optimizer.zero_grad()
                model(x, y).backward()
                optimizer.step()
                scheduler.step()  # expect: epoch-scheduler-stepped-per-batch

        def main(model, loader):
            optimizer = optim.SGD(model.parameters(), lr=0.1)
            scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=100)
            for epoch in range(100):
                train_one_epoch(model, loader, optimizer, scheduler)
        """
    check(src, SCHED)
    (f,) = messages(src, "epoch-scheduler-stepped-per-batch")
    assert "CosineAnnealingLR (built at line 13)" in f.message and "called at line 15" in f.message


def test_per_step_schedules_per_batch_and_plateau_per_epoch_are_fine():
    check(
        """
        import torch
        from torch.optim import lr_scheduler as S

        def fit(model, loader, val, epochs):
            opt = torch.optim.AdamW(model.parameters())
            cos = S.CosineAnnealingLR(opt, T_max=len(loader) * epochs)
            plateau = S.ReduceLROnPlateau(opt)
            for epoch in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    model(x, y).backward()
                    opt.step()
                    cos.step()
                val_loss = val(model)
                plateau.step(val_loss)
        """,
        SCHED,
    )


def test_onecycle_stepped_per_epoch():
    src = """
        import torch
        from torch.optim.lr_scheduler import OneCycleLR as OC

        def fit(model, loader, epochs):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = OC(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
            for epoch in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    model(x, y).backward()
                    opt.step()
                sched.step()  # expect: step-scheduler-stepped-per-epoch
        """
    check(src, SCHED)


def test_warmup_schedule_per_batch_and_onecycle_sized_in_epochs_are_fine():
    check(
        """
        import torch
        from transformers import get_linear_schedule_with_warmup
        from torch.optim.lr_scheduler import OneCycleLR

        def fit(model, loader, epochs):
            opt = torch.optim.AdamW(model.parameters())
            warm = get_linear_schedule_with_warmup(opt, 100, len(loader) * epochs)
            cyc = OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=1)
            for epoch in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    model(x, y).backward()
                    opt.step()
                    warm.step()
                cyc.step()
        """,
        SCHED,
    )


# -- gradient accumulation -------------------------------------------------------------------------------

ACC = {"grad-accumulation-loss-not-scaled"}


def test_accumulation_without_division():
    src = """
        def train(model, loader, optimizer, crit, accum_steps=4):
            for i, (x, y) in enumerate(loader):
                loss = crit(model(x), y)
                loss.backward()  # expect: grad-accumulation-loss-not-scaled
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """
    check(src, ACC)
    (f,) = messages(src, "grad-accumulation-loss-not-scaled")
    assert "accum_steps" in f.message and "line 6" in f.message


def test_accumulation_with_division_variants_is_fine():
    check(
        """
        def a(model, loader, optimizer, crit, k):
            for i, (x, y) in enumerate(loader):
                loss = crit(model(x), y)
                loss = loss / k
                loss.backward()
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()

        def b(model, loader, optimizer, crit, k):
            for i, (x, y) in enumerate(loader):
                (crit(model(x), y) / k).backward()
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()

        def c(accelerator, model, loader, optimizer, crit):
            for i, (x, y) in enumerate(loader):
                with accelerator.accumulate(model):
                    accelerator.backward(crit(model(x), y))
                    if i % 2 == 0:
                        optimizer.step()
                        optimizer.zero_grad()

        def d(model, loader, optimizer, crit, log_every):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                crit(model(x), y).backward()
                optimizer.step()
                if i % log_every == 0:
                    print(i)
        """,
        ACC,
    )


# -- clipping ---------------------------------------------------------------------------------------------

CLIP = {"clip-grad-misplaced", "clip-grad-without-unscale"}


def test_clip_after_step_and_before_backward():
    check(
        """
        import torch
        from torch.nn.utils import clip_grad_norm_

        def a(model, loader, opt):
            for x in loader:
                opt.zero_grad()
                model(x).sum().backward()
                opt.step()
                clip_grad_norm_(model.parameters(), 1.0)  # expect: clip-grad-misplaced

        def b(model, loader, opt):
            for x in loader:
                opt.zero_grad()
                torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)  # expect: clip-grad-misplaced
                model(x).sum().backward()
                opt.step()
        """,
        CLIP,
    )


def test_clip_under_scaler_without_unscale():
    src = """
        import torch

        def train(model, loader, opt):
            scaler = torch.amp.GradScaler("cuda")
            for x in loader:
                opt.zero_grad()
                with torch.autocast("cuda"):
                    loss = model(x).sum()
                scaler.scale(loss).backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: clip-grad-without-unscale
                scaler.step(opt)
                scaler.update()
        """
    check(src, CLIP)


def test_clip_correct_placements_are_fine():
    check(
        """
        import torch

        def a(model, loader, opt):
            for x in loader:
                opt.zero_grad()
                model(x).sum().backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()

        def b(model, loader, opt, scaler):
            for x in loader:
                opt.zero_grad()
                scaler.scale(model(x).sum()).backward()
                scaler.unscale_(opt)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(opt)
                scaler.update()
        """,
        CLIP,
    )


# -- broad except -----------------------------------------------------------------------------------------

EXC = {"broad-except-around-training-step"}


def test_broad_except_that_continues():
    src = """
        def train(model, loader, opt):
            for x in loader:
                try:
                    opt.zero_grad()
                    model(x).sum().backward()
                    opt.step()
                except Exception as e:  # expect: broad-except-around-training-step
                    print(f"skipping batch: {e}")
                    continue
        """
    check(src, EXC)


def test_broad_except_message_names_the_step_it_protects():
    src = """
        import torch

        def train(model, loader, opt, crit):
            for x, y in loader:
                try:
                    x = x.cuda(non_blocking=True)
                    loss = crit(model(x), y)
                    loss.backward()
                    opt.step()
                except Exception:  # expect: broad-except-around-training-step
                    continue

        class Trainer:
            def fit(self):
                for batch in self.loader:
                    try:
                        self.log_batch(batch)
                        self.train_step(batch)
                    except:  # expect: broad-except-around-training-step
                        pass

            def train_step(self, batch):
                loss = self.model(batch).sum()
                loss.backward()
                self.optimizer.step()

            def log_batch(self, batch):
                print(len(batch))

        def main():
            setup_logging()
            train(model, loader, opt, crit)

        if __name__ == "__main__":
            main()
        """
    check(src, EXC)
    first, second = sorted(messages(src, "broad-except-around-training-step"), key=lambda f: f.location.line)
    # the step inside the try, not the first call of the try body nor a caller's call site (main() -> train())
    assert "`loss.backward()` (line 9) and `opt.step()` (line 10)" in first.message
    assert "except Exception` at line 11" in first.message
    assert "cuda" not in first.message and "line 33" not in first.message
    assert "`loss.backward()` (line 25) and `self.optimizer.step()` (line 26)" in second.message
    assert "run by `self.train_step(batch)` at line 19" in second.message and "log_batch" not in second.message


def test_oom_retry_and_reraise_are_fine():
    check(
        """
        import torch

        def a(model, loader, opt):
            for x in loader:
                try:
                    opt.zero_grad()
                    model(x).sum().backward()
                    opt.step()
                except RuntimeError as e:
                    if "out of memory" not in str(e):
                        raise
                    torch.cuda.empty_cache()

        def b(model, loader, opt):
            for x in loader:
                try:
                    opt.zero_grad()
                    model(x).sum().backward()
                    opt.step()
                except torch.cuda.OutOfMemoryError:
                    torch.cuda.empty_cache()
                    continue

        def c(model, loader, opt, log):
            for x in loader:
                try:
                    opt.zero_grad()
                    model(x).sum().backward()
                    opt.step()
                except Exception:
                    log.exception("step failed")
                    raise
        """,
        EXC,
    )


# -- loss values -------------------------------------------------------------------------------------------

LOSS = {"loss-accumulated-with-graph", "loss-rewrapped-after-graph-cut"}


def test_total_loss_accumulates_graph():
    src = """
        def train(model, loader, opt, crit):
            total_loss = 0.0
            history = []
            for x, y in loader:
                opt.zero_grad()
                loss = crit(model(x), y)
                loss.backward()
                opt.step()
                total_loss += loss  # expect: loss-accumulated-with-graph
                history.append(loss)  # expect: loss-accumulated-with-graph
            return total_loss / len(loader)
        """
    check(src, LOSS)


def test_total_loss_with_item_detach_float_and_backprop_of_sum_are_fine():
    check(
        """
        def a(model, loader, opt, crit):
            total, n = 0.0, 0
            losses = []
            for x, y in loader:
                opt.zero_grad()
                loss = crit(model(x), y)
                loss.backward()
                opt.step()
                total += loss.item()
                n += loss.detach() * 2
                losses.append(float(loss))

        def b(model, loader, opt, crit):
            for x, y in loader:
                opt.zero_grad()
                loss = crit(model(x), y)
                loss.backward()
                opt.step()
                loss = loss.item()
                running = 0.0
                running += loss

        def c(model, chunks, opt, crit):
            for batch in chunks:
                opt.zero_grad()
                total = 0
                for x, y in batch:
                    part = crit(model(x), y)
                    total += part
                total.backward()
                opt.step()
        """,
        LOSS,
    )


def test_loss_rewrapped_after_item():
    src = """
        import torch

        def train(model, loader, opt, crit):
            for x, y in loader:
                opt.zero_grad()
                value = crit(model(x), y).item()
                loss = torch.tensor(value, requires_grad=True)  # expect: loss-rewrapped-after-graph-cut
                loss.backward()
                opt.step()

        def train2(model, loader, opt, metric):
            for x, y in loader:
                opt.zero_grad()
                loss = 1 - metric(model(x).argmax(1), y)
                loss.requires_grad = True  # expect: loss-rewrapped-after-graph-cut
                loss.backward()
                opt.step()
        """
    check(src, LOSS)


def test_detached_target_network_is_fine():
    check(
        """
        import torch
        import torch.nn.functional as F

        def dqn(q_net, target_net, batches, opt, gamma):
            for s, a, r, s2 in batches:
                with torch.no_grad():
                    target = r + gamma * target_net(s2).max(1).values
                q = q_net(s).gather(1, a)
                loss = F.smooth_l1_loss(q, target.detach())
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        LOSS | ZG,
    )


# -- retain_graph, no_grad ----------------------------------------------------------------------------------


def test_retain_graph_single_backward_per_step():
    src = """
        import torch

        def tbptt(rnn, head, chunks, opt):
            hidden = None
            for x, y in chunks:
                opt.zero_grad()
                out, hidden = rnn(x, hidden)
                loss = torch.nn.functional.mse_loss(head(out), y)
                loss.backward(retain_graph=True)  # expect: retain-graph-in-loop
                opt.step()
        """
    check(src, {"retain-graph-in-loop"})
    (f,) = messages(src, "retain-graph-in-loop")
    assert f.severity == "info" and ".detach()" in f.message


def test_retain_graph_needed_for_second_backward_is_fine():
    check(
        """
        def two_losses(model, loader, opt):
            for x in loader:
                opt.zero_grad()
                feats = model.encoder(x)
                rec = model.decoder(feats).pow(2).mean()
                reg = feats.abs().mean()
                rec.backward(retain_graph=True)
                reg.backward()
                opt.step()
        """,
        {"retain-graph-in-loop"},
    )


def test_backward_under_no_grad_decorator_and_block():
    check(
        """
        import torch

        @torch.no_grad()
        def train_epoch(model, loader, opt, crit):
            for x, y in loader:
                opt.zero_grad()
                loss = crit(model(x), y)
                loss.backward()  # expect: backward-under-no-grad
                opt.step()

        def train2(model, loader, opt, crit):
            for x, y in loader:
                opt.zero_grad()
                with torch.no_grad():
                    loss = crit(model(x), y)
                    loss.backward()  # expect: backward-under-no-grad
                opt.step()
        """,
        {"backward-under-no-grad"},
    )


def test_no_grad_for_frozen_teacher_only_is_fine():
    check(
        """
        import torch

        def distill(student, teacher, loader, opt, crit):
            for x, y in loader:
                with torch.no_grad():
                    soft = teacher(x).softmax(-1)
                opt.zero_grad()
                loss = crit(student(x), soft)
                loss.backward()
                opt.step()

        def odd_but_valid(model, loader, opt, crit):
            for x, y in loader:
                opt.zero_grad()
                loss = crit(model(x), y)
                with torch.no_grad():
                    loss.backward()
                opt.step()
        """,
        {"backward-under-no-grad"},
    )


def test_loss_rewrapped_from_numpy_metric_helper():
    check(
        """
        import torch

        def iou(pred, target):
            p = pred.detach().cpu().numpy() > 0.5
            return (p & target).sum() / ((p | target).sum() + 1e-6)

        def train(model, loader, opt):
            for x, target in loader:
                opt.zero_grad()
                loss = torch.tensor(1 - iou(model(x), target), requires_grad=True)  # expect: loss-rewrapped-after-graph-cut
                loss.backward()
                opt.step()
        """,
        LOSS,
    )


def test_leaf_tensor_with_requires_grad_outside_training_is_fine():
    check(
        """
        import torch

        def check_grad():
            w = torch.tensor([1.0, 2.0], requires_grad=True)
            loss = (w ** 2).sum()
            loss.backward()
            return w.grad

        def train(model, loader, opt):
            for x, y in loader:
                opt.zero_grad()
                scale = torch.tensor(2.0, requires_grad=True)
                loss = (model(x) - y).pow(2).mean() * scale
                loss.backward()
                opt.step()
        """,
        LOSS,
    )


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


def test_manual_grad_zeroing_forms_count_as_zero_grad():
    check(
        """
        def train(model, loader, optimizer):
            for x in loader:
                for p in model.parameters():
                    if p.grad is not None:
                        p.grad.data.zero_()
                model(x).sum().backward()
                optimizer.step()

        def train2(model, loader, optimizer):
            for x in loader:
                model(x).sum().backward()
                optimizer.step()
                for p in model.parameters():
                    p.grad.fill_(0)
        """,
        ZG,
    )


def test_scheduler_seen_through_accelerator_prepare():
    src = """
        import torch
        from accelerate import Accelerator

        def train(build, loader, epochs=100):
            accelerator = Accelerator()
            model = build()
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
            scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
            loader, model, optimizer, scheduler = accelerator.prepare(loader, model, optimizer, scheduler)
            for ep in range(epochs):
                train_one_epoch(model, loader, optimizer, scheduler, accelerator)

        def train_one_epoch(model, loader, optimizer, scheduler, accelerator):
            model.train()
            for batch in loader:
                optimizer.zero_grad()
                accelerator.backward(model(batch).loss)
                optimizer.step()
                scheduler.step()  # expect: epoch-scheduler-stepped-per-batch
        """
    check(src, SCHED)


def test_zero_grad_named_but_not_called():
    src = """
        def train_one_epoch(model, optimizer, data_loader):
            for images, targets in data_loader:
                losses = model(images, targets)
                total = sum(losses.values())
                total.backward()
                optimizer.step()  # expect: missing-zero-grad
                optimizer.zero_grad
        """
    check(src, ZG)
    (f,) = messages(src, "missing-zero-grad")
    assert "without calling it" in f.message and "line 8" in f.message
