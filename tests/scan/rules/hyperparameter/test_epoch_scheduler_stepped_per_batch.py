"""The ``epoch-scheduler-stepped-per-batch`` rule (``mlsleuth/scan/rules/hyperparameter/epoch_scheduler_stepped_per_batch.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, messages

SCHED = {"scheduler-before-optimizer", "epoch-scheduler-stepped-per-batch", "step-scheduler-stepped-per-epoch"}


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


def test_phase_guard_set_by_an_outer_loop_keeps_the_per_batch_frequency():
    # ``if phase == "train"`` is taken on every batch of the train phase: still once per batch
    src = """
        import torch

        def fit(model, loaders, criterion, optimizer, scheduler, epochs):
            for epoch in range(epochs):
                for phase in ("train", "val"):
                    for x, y in loaders[phase]:
                        optimizer.zero_grad()
                        loss = criterion(model(x), y)
                        if phase == "train":
                            loss.backward()
                            optimizer.step()
                            scheduler.step()  # expect: epoch-scheduler-stepped-per-batch

        if __name__ == "__main__":
            net = torch.nn.Linear(2, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            fit(net, {}, torch.nn.MSELoss(), opt, torch.optim.lr_scheduler.StepLR(opt, step_size=7), 12)
        """
    check(src, SCHED)


def test_guard_on_a_value_that_changes_per_batch_is_not_per_batch():
    src = """
        import torch

        def fit(model, loader, optimizer, epochs):
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7)
            for epoch in range(epochs):
                for i, (x, y) in enumerate(loader):
                    optimizer.zero_grad()
                    model(x).sum().backward()
                    optimizer.step()
                    last = i == len(loader) - 1
                    if last:
                        scheduler.step()
        """
    check(src, SCHED)


def test_plateau_stepped_at_a_periodic_validation_is_fine():
    src = """
        import torch

        def fit(model, loader, optimizer, validate, max_steps, every):
            plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min")
            step = 0
            while step < max_steps:
                for x, y in loader:
                    optimizer.zero_grad()
                    model(x).sum().backward()
                    optimizer.step()
                    step += 1
                    if step % every == 0:
                        plateau.step(validate(model))
        """
    check(src, SCHED)


def test_scheduler_passed_in_by_the_caller_in_another_file(tmp_path):
    from scan.helpers import check_project

    files = {
        "loop.py": """
            def run_epochs(model, loader, opt, sched, epochs):
                for epoch in range(epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        model(x).sum().backward()
                        opt.step()
                        sched.step()  # expect: epoch-scheduler-stepped-per-batch
        """,
        "main.py": """
            import torch
            from loop import run_epochs

            net = torch.nn.Linear(2, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            run_epochs(net, [], opt, torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[30, 60]), 90)
        """,
    }
    check_project(tmp_path, files, SCHED)


def test_per_step_scheduler_passed_in_from_another_file_is_fine(tmp_path):
    from scan.helpers import check_project

    files = {
        "loop.py": """
            def run_epochs(model, loader, opt, sched, epochs):
                for epoch in range(epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        model(x).sum().backward()
                        opt.step()
                        sched.step()
        """,
        "main.py": """
            import torch
            from loop import run_epochs

            net = torch.nn.Linear(2, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            run_epochs(net, [], opt, torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=1000), 90)
        """,
    }
    check_project(tmp_path, files, SCHED)


def test_cosine_t_max_counted_in_optimizer_steps_is_not_an_epoch_schedule():
    literal = """
        import torch
        from torch.utils.data import DataLoader

        EPOCHS = 5

        def main(model, dataset):
            loader = DataLoader(dataset, batch_size=32, shuffle=True)  # 640 samples: 20 batches
            opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=100)  # 5 epochs x 20 batches
            for epoch in range(EPOCHS):
                for x, y in loader:
                    opt.zero_grad()
                    torch.nn.functional.cross_entropy(model(x), y).backward()
                    opt.step()
                    sched.step()
        """
    through_a_variable = """
        import torch

        def main(model, loader, epochs):
            opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            horizon = epochs * len(loader)
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, horizon, eta_min=1e-5)
            for epoch in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    model(x, y).backward()
                    opt.step()
                    sched.step()
        """
    argparse_default = """
        import argparse
        import torch

        parser = argparse.ArgumentParser()
        parser.add_argument("--epochs", type=int, default=3)
        parser.add_argument("--lr", type=float, default=1e-3)

        def main(model, loader, args):
            opt = torch.optim.Adam(model.parameters(), lr=args.lr)
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=300)  # 3 epochs of 100 batches
            for epoch in range(args.epochs):
                for x, y in loader:
                    opt.zero_grad()
                    model(x, y).backward()
                    opt.step()
                    sched.step()
        """
    check(literal, SCHED)
    check(through_a_variable, SCHED)
    check(argparse_default, SCHED)


def test_cosine_t_max_equal_to_the_epoch_count_stepped_per_batch_is_still_flagged():
    same_name = """
        import torch

        EPOCHS = 5

        def main(model, loader):
            opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS)
            for epoch in range(EPOCHS):
                for x, y in loader:
                    opt.zero_grad()
                    torch.nn.functional.cross_entropy(model(x), y).backward()
                    opt.step()
                    sched.step()  # expect: epoch-scheduler-stepped-per-batch
        """
    literals = """
        import torch

        def main(model, loader):
            opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=50)
            for epoch in range(50):
                for x, y in loader:
                    opt.zero_grad()
                    torch.nn.functional.cross_entropy(model(x), y).backward()
                    opt.step()
                    sched.step()  # expect: epoch-scheduler-stepped-per-batch
        """
    unknown_epochs = """
        import torch

        def main(model, loader, args):
            opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)
            for epoch in range(args.epochs):
                for x, y in loader:
                    opt.zero_grad()
                    torch.nn.functional.cross_entropy(model(x), y).backward()
                    opt.step()
                    sched.step()  # expect: epoch-scheduler-stepped-per-batch
        """
    argparse_epochs = """
        import argparse
        import torch

        parser = argparse.ArgumentParser()
        parser.add_argument("--num-epochs", type=int, default=90)

        def main(model, loader, args):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=90)
            for epoch in range(args.num_epochs):
                for x, y in loader:
                    opt.zero_grad()
                    model(x, y).backward()
                    opt.step()
                    sched.step()  # expect: epoch-scheduler-stepped-per-batch
        """
    check(same_name, SCHED)
    check(literals, SCHED)
    check(unknown_epochs, SCHED)
    check(argparse_epochs, SCHED)


# -- schedules a project helper builds: its step-counting parameter given a number of epochs --

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
