"""``epoch-scheduler-stepped-per-batch`` on schedules a project helper builds: the helper's step-counting
parameter given a number of epochs while the scheduler is stepped once per batch."""

from __future__ import annotations

from scan.helpers import check, check_project

SCHED = {"epoch-scheduler-stepped-per-batch"}

_FACTORIES = """
    import math

    from torch.optim.lr_scheduler import LambdaLR


    def cosine_with_warmup(optimizer, warmup_steps, max_steps):
        def lr_lambda(step):
            if step < warmup_steps:
                return (step + 1) / max(1, warmup_steps)
            progress = (step - warmup_steps) / max(1, max_steps - warmup_steps)
            return 0.5 * (1.0 + math.cos(math.pi * progress))
        return LambdaLR(optimizer, lr_lambda)


    def linear_decay(optimizer, max_steps):
        return LambdaLR(optimizer, lambda s: max(0.0, 1 - s / max_steps))


    def get_scheduler(name, optimizer, max_steps, warmup_fraction=0.0):
        if name == "cosine_warmup":
            return cosine_with_warmup(optimizer, int(warmup_fraction * max_steps), max_steps)
        if name == "linear":
            return linear_decay(optimizer, max_steps)
        raise ValueError(name)
"""


def _trainer(horizon: str, *, per_batch: bool = True, mark: str = "") -> str:
    inner = "            self.scheduler.step()\n" if per_batch else ""
    outer = "" if per_batch else "        self.scheduler.step()\n"
    return f"""
import torch

from schedulers import get_scheduler


class Trainer:
    def __init__(self, model, loader, cfg):
        self.model = model
        self.loader = loader
        self.cfg = cfg
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        self.scheduler = get_scheduler(cfg.scheduler, self.optimizer,
                                       max_steps={horizon}, warmup_fraction=0.01){mark}

    def train_epoch(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()
{inner}{outer}
    def fit(self):
        for epoch in range(self.cfg.max_epoch):
            self.train_epoch()
"""


def test_factory_in_another_module_sized_in_epochs_stepped_per_batch(tmp_path):
    files = {"schedulers.py": _FACTORIES, "trainer.py": _trainer("cfg.max_epoch", mark="  # expect: epoch-scheduler-stepped-per-batch")}
    check_project(tmp_path, files, SCHED)


def test_same_factory_stepped_once_per_epoch_is_fine(tmp_path):
    files = {"schedulers.py": _FACTORIES, "trainer.py": _trainer("cfg.max_epoch", per_batch=False)}
    check_project(tmp_path, files, SCHED)


def test_factory_given_a_count_of_optimizer_steps_is_fine(tmp_path):
    for horizon in ("cfg.max_epoch * cfg.max_steps_per_epoch", "cfg.max_epoch * len(loader)", "cfg.total_iters"):
        files = {"schedulers.py": _FACTORIES, "trainer.py": _trainer(horizon)}
        check_project(tmp_path / horizon.replace(" ", "").replace("*", "x").replace("(", "").replace(")", ""), files, SCHED)


def test_same_file_factory_positional_argument_through_a_variable():
    src = """
    import torch
    from torch.optim.lr_scheduler import LambdaLR

    def build_scheduler(optimizer, total_steps):
        return LambdaLR(optimizer, lambda s: 1.0 - s / total_steps)

    def main(args, model, loader):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        total = args.num_epochs
        sched = build_scheduler(opt, total)  # expect: epoch-scheduler-stepped-per-batch
        for epoch in range(args.num_epochs):
            for x, y in loader:
                opt.zero_grad()
                model(x).sum().backward()
                opt.step()
                sched.step()
    """
    check(src, SCHED)


def test_factory_returning_a_transformers_schedule_given_a_config_entry_of_epochs():
    src = """
    import torch
    from transformers import get_cosine_schedule_with_warmup

    def make_lr_scheduler(opt, num_training_steps, warmup_ratio=0.1):
        warmup = int(warmup_ratio * num_training_steps)
        return get_cosine_schedule_with_warmup(opt, warmup, num_training_steps)

    def train(cfg, model, loader):
        opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
        lr_scheduler = make_lr_scheduler(opt, num_training_steps=cfg["epochs"])  # expect: epoch-scheduler-stepped-per-batch
        for epoch in range(cfg["epochs"]):
            for batch in loader:
                loss = model(**batch).loss
                loss.backward()
                opt.step()
                lr_scheduler.step()
                opt.zero_grad()
    """
    check(src, SCHED)


def test_factory_that_counts_epochs_itself_is_fine():
    # the helper takes epochs and the batches per epoch and converts them: its parameters say so
    src = """
    import torch
    from torch.optim.lr_scheduler import OneCycleLR

    def build_scheduler(optimizer, epochs, steps_per_epoch, max_lr=0.1):
        return OneCycleLR(optimizer, max_lr=max_lr, epochs=epochs, steps_per_epoch=steps_per_epoch)

    def main(args, model, loader):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = build_scheduler(opt, args.epochs, len(loader))
        for epoch in range(args.epochs):
            for x, y in loader:
                opt.zero_grad()
                model(x).sum().backward()
                opt.step()
                sched.step()
    """
    check(src, SCHED)


def test_helper_returning_something_else_than_a_scheduler_is_not_followed():
    src = """
    import torch

    def build_sched_and_log(optimizer, max_steps):
        return {"optimizer": optimizer, "max_steps": max_steps}

    def main(args, model, loader, scheduler):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched_info = build_sched_and_log(opt, max_steps=args.epochs)
        for epoch in range(args.epochs):
            for x, y in loader:
                opt.zero_grad()
                model(x).sum().backward()
                opt.step()
                scheduler.step()
    """
    check(src, SCHED)


def test_iteration_based_training_without_an_epoch_loop_is_fine():
    src = """
    import torch
    from torch.optim.lr_scheduler import LambdaLR

    def build_scheduler(optimizer, max_iters):
        return LambdaLR(optimizer, lambda s: 1.0 - s / max_iters)

    def main(args, model, batches):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = build_scheduler(opt, max_iters=args.epochs)
        for x, y in batches:
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
            sched.step()
    """
    check(src, SCHED)
