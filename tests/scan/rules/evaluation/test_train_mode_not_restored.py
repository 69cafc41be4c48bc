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


def test_mid_epoch_validation_through_helpers_of_another_module(tmp_path):
    from scan.helpers import check_project

    check_project(tmp_path, {
        "model.py": """
            import torch.nn as nn

            class Retrieval(nn.Module):
                def __init__(self, opt):
                    super().__init__()
                    self.img_enc = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.2))
                    self.optimizer = torch.optim.Adam(self.parameters())

                def train_start(self):
                    self.img_enc.train()

                def val_start(self):
                    self.img_enc.eval()

                def train_emb(self, images):
                    self.optimizer.zero_grad()
                    loss = self.img_enc(images).pow(2).mean()
                    loss.backward()
                    self.optimizer.step()
                    return loss.item()
        """,
        "train.py": """
            import torch
            from model import Retrieval

            def validate(val_loader, model):
                model.val_start()
                with torch.no_grad():
                    return sum(model.img_enc(x).sum().item() for x in val_loader)

            def train(train_loader, model, val_loader, val_every):
                model.train_start()
                for i, images in enumerate(train_loader):
                    model.train_emb(images)
                    if i % val_every == 0:
                        validate(val_loader, model)  # expect: train-mode-not-restored

            def train_restored(train_loader, model, val_loader, val_every):
                model.train_start()
                for i, images in enumerate(train_loader):
                    model.train_emb(images)
                    if i % val_every == 0:
                        validate(val_loader, model)
                        model.train_start()

            def main(opt, train_loader, val_loader):
                model = Retrieval(opt)
                for epoch in range(opt.epochs):
                    train(train_loader, model, val_loader, opt.val_every)
                    train_restored(train_loader, model, val_loader, opt.val_every)
        """,
    }, {"train-mode-not-restored"})


def test_a_training_function_that_sets_eval_mode_itself_is_fine():
    # a linear probe on a frozen backbone: the training function switches to eval mode on every call
    # (so batch-norm statistics of the pretrained trunk stay put) before its own batch loop
    check(
        """
        import torch

        def probe_epoch(net, loader, opt, loss_fn):
            net.eval()
            for images, labels in loader:
                loss = loss_fn(net(images), labels)
                opt.zero_grad()
                loss.backward()
                opt.step()

        def score(net, loader):
            net.eval()
            with torch.no_grad():
                return sum((net(x).argmax(1) == y).sum().item() for x, y in loader)

        def main(net, train_loader, val_loader, epochs):
            for p in net.parameters():
                p.requires_grad = False
            net.head.weight.requires_grad = True
            opt = torch.optim.SGD([net.head.weight], lr=0.1)
            for epoch in range(epochs):
                probe_epoch(net, train_loader, opt, torch.nn.CrossEntropyLoss())
                print(score(net, val_loader))
        """,
        TR,
    )
