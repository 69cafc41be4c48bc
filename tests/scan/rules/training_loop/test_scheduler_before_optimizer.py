"""The ``scheduler-before-optimizer`` rule (``mlsleuth/scan/rules/training_loop/scheduler_before_optimizer.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

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


RULE = {"scheduler-before-optimizer"}


def test_scheduler_stepped_before_a_helper_of_a_missing_module_that_gets_its_optimizer():
    # the training helper lives in a module the scan does not have: handing it the optimizer counts as its step
    src = """
        import torch
        import train_and_test as tnt

        net = torch.nn.Linear(4, 2)
        joint_optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        joint_lr_scheduler = torch.optim.lr_scheduler.StepLR(joint_optimizer, step_size=5, gamma=0.1)
        warm_optimizer = torch.optim.Adam(net.parameters(), lr=3e-3)

        for epoch in range(100):
            if epoch < 5:
                tnt.warm_only(model=net)
                tnt.train(model=net, dataloader=None, optimizer=warm_optimizer)
            else:
                tnt.joint(model=net)
                joint_lr_scheduler.step()  # expect: scheduler-before-optimizer
                tnt.train(model=net, dataloader=None, optimizer=joint_optimizer)
    """
    check(src, RULE)


def test_old_style_epoch_loop_with_a_train_function_imported_by_name():
    src = """
        import torch
        from engine import train_one_epoch, evaluate

        def main(model, loader, epochs):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])
            for epoch in range(epochs):
                scheduler.step()  # expect: scheduler-before-optimizer
                train_one_epoch(model, loader, optimizer, epoch)
                evaluate(model, loader)
    """
    check(src, RULE)


def test_guard_shared_by_scheduler_and_optimizer_steps_in_one_phase():
    src = """
        import torch

        def fit(model, loader, epochs, warm):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
            for epoch in range(epochs):
                if epoch >= warm:
                    sched.step()  # expect: scheduler-before-optimizer
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
    """
    check(src, RULE)


def test_scheduler_after_the_helper_or_for_another_optimizer_is_fine():
    src = """
        import torch
        import train_and_test as tnt
        from engine import train_one_epoch, save_checkpoint

        def main(model, loader, epochs):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
            head_optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
            head_scheduler = torch.optim.lr_scheduler.StepLR(head_optimizer, step_size=30)
            for epoch in range(epochs):
                train_one_epoch(model, loader, optimizer, epoch)
                scheduler.step()
                head_scheduler.step()
                tnt.train(model=model, dataloader=loader, optimizer=optimizer)
                save_checkpoint(model, optimizer, scheduler)
    """
    check(src, RULE)


def test_resume_state_restored_before_the_loop_and_a_readable_helper_that_never_steps_are_fine():
    src = """
        import torch

        def log_lr(optimizer, epoch):
            print(epoch, optimizer.param_groups[0]["lr"])

        def main(model, loader, epochs, resume):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
            scheduler.load_state_dict(resume["scheduler"])
            for epoch in range(epochs):
                scheduler.step()
                log_lr(optimizer, epoch)
    """
    check(src, RULE)


def test_scheduler_under_its_own_guard_before_an_unguarded_step_stays_silent():
    src = """
        import torch

        def fit(model, loader, epochs, warm):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
            for epoch in range(epochs):
                if epoch >= warm:
                    sched.step()
                for x, y in loader:
                    opt.zero_grad()
                    torch.nn.functional.mse_loss(model(x), y).backward()
                    opt.step()
    """
    check(src, RULE)
