"""The ``train-mode-not-restored`` rule (``mlsleuth/scan/rules/evaluation/train_mode_not_restored.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

TR = {"train-mode-not-restored"}


def test_train_not_restored_after_eval_in_helper():
    src = """
        import torch

        def evaluate(model, loader):
            model.eval()
            with torch.no_grad():
                return sum(model(x).sum() for x in loader)

        def fit(model, train_loader, val_loader, epochs):
            opt = torch.optim.Adam(model.parameters())
            model.train()
            for epoch in range(epochs):
                for x in train_loader:
                    opt.zero_grad()
                    model(x).sum().backward()
                    opt.step()
                score = evaluate(model, val_loader)  # expect: train-mode-not-restored
        """
    check(src, TR)
    (f,) = messages(src, "train-mode-not-restored")
    assert "line 5" in f.message and "evaluate" in f.message and "line 12" in f.message


def test_train_restored_or_eval_on_teacher_is_fine():
    check(
        """
        import torch

        def evaluate(model, loader):
            model.eval()
            with torch.no_grad():
                return sum(model(x).sum() for x in loader)

        def train_epoch(model, loader, opt):
            model.train()
            for x in loader:
                opt.zero_grad()
                model(x).sum().backward()
                opt.step()

        def fit(model, train_loader, val_loader, epochs):
            opt = torch.optim.Adam(model.parameters())
            for epoch in range(epochs):
                train_epoch(model, train_loader, opt)
                evaluate(model, val_loader)

        def distill(student, teacher, loader):
            opt = torch.optim.Adam(student.parameters())
            student.train()
            for x in loader:
                teacher.eval()
                with torch.no_grad():
                    t = teacher(x)
                opt.zero_grad()
                ((student(x) - t) ** 2).mean().backward()
                opt.step()
        """,
        TR,
    )
