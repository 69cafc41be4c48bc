"""Evaluation rules: eval mode, train mode restored, functional dropout, direct forward calls."""

from __future__ import annotations

from rules_b_helpers import check, messages

EV = {"eval-without-eval-mode"}


def test_evaluate_function_without_eval():
    src = """
        import torch

        def evaluate(model, val_loader):
            correct = 0
            with torch.no_grad():
                for x, y in val_loader:
                    out = model(x)  # expect: eval-without-eval-mode
                    correct += (out.argmax(1) == y).sum().item()
            return correct
        """
    check(src, EV)
    (f,) = messages(src, "eval-without-eval-mode")
    assert "model.training" in f.next_test


def test_val_loader_loop_in_notebook_style_script():
    check(
        """
        import torch
        net = build()
        net.train()
        for x, y in train_loader:
            pass
        with torch.inference_mode():
            for xb, yb in val_loader:
                preds = net(xb)  # expect: eval-without-eval-mode
        """,
        EV,
    )


def test_eval_called_in_function_or_by_caller_is_fine():
    check(
        """
        import torch

        def evaluate(model, loader):
            model.eval()
            with torch.no_grad():
                for x, y in loader:
                    out = model(x)

        def test(model, loader):
            with torch.no_grad():
                return [model(x) for x, _ in loader]

        def validate(model, loader):
            with torch.no_grad():
                for x, y in loader:
                    out = model(x)

        def main(model, loader):
            model.eval()
            validate(model, loader)

        def calibrate(model, calib_loader):
            with torch.no_grad():
                for x in calib_loader:
                    model(x)

        def test_forward_shapes(self):
            with torch.no_grad():
                for shape in [(1, 3), (2, 3)]:
                    self.model(torch.zeros(shape))

        def evaluate_teacher(teacher, val_loader):
            with torch.no_grad():
                for x, y in val_loader:
                    t = teacher(x)
        """,
        EV,
    )


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


FD = {"functional-dropout-always-on"}


def test_functional_dropout_without_training_flag():
    check(
        """
        import torch.nn as nn
        import torch.nn.functional as fn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)

            def forward(self, x):
                h = fn.dropout(self.fc(x), p=0.1)  # expect: functional-dropout-always-on
                return fn.dropout2d(h, 0.2)  # expect: functional-dropout-always-on
        """,
        FD,
    )


def test_functional_dropout_with_training_or_outside_module_is_fine():
    check(
        """
        import torch
        import torch.nn.functional as F

        class Block(torch.nn.Module):
            def forward(self, x):
                x = F.dropout(x, 0.1, training=self.training)
                x = F.dropout(x, 0.1, self.training)
                return F.dropout(x, p=0.5, training=True)  # MC dropout, on purpose

        def augment(x):
            return F.dropout(x, 0.1)
        """,
        FD,
    )


FW = {"direct-forward-call"}


def test_direct_forward_call_in_training_loop():
    check(
        """
        import torch

        def train(model, loader, opt):
            model.train()
            for x, y in loader:
                opt.zero_grad()
                out = model.forward(x)  # expect: direct-forward-call
                torch.nn.functional.mse_loss(out, y).backward()
                opt.step()
        """,
        FW,
    )


def test_forward_inside_modules_super_and_ddp_is_fine():
    check(
        """
        import torch
        from torch import nn
        from torch.nn.parallel import DistributedDataParallel as DDP

        class Wrapper(nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                return self.inner.forward(x) + super().forward(x)

        def train(net, loader, opt):
            model = DDP(net)
            model.train()
            for x in loader:
                opt.zero_grad()
                model.forward(x).sum().backward()
                opt.step()
        """,
        FW,
    )


NS = {"train-mode-never-set"}


def test_from_pretrained_trained_without_train_call():
    src = """
        import torch
        from transformers import AutoModelForSequenceClassification

        model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased").to("cuda")
        optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
        for batch in loader:  # expect: train-mode-never-set
            optimizer.zero_grad()
            out = model(**batch)
            out.loss.backward()
            optimizer.step()
        """
    check(src, NS)
    (f,) = messages(src, "train-mode-never-set")
    assert "line 5" in f.message and "model.training" in f.next_test


def test_from_pretrained_with_train_call_is_fine():
    check(
        """
        import torch
        from transformers import AutoModel

        def fit(loader):
            model = AutoModel.from_pretrained("x")
            optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
            model.train()
            for batch in loader:
                optimizer.zero_grad()
                model(**batch).loss.backward()
                optimizer.step()
        """,
        NS,
    )


def test_inline_evaluation_in_training_loop_followed_by_train():
    src = """
        import torch

        def fit(model, opt, make_batch, loss_fn):
            for step in range(200):
                x, y = make_batch()
                opt.zero_grad()
                loss_fn(model(x), y).backward()
                opt.step()
                if step % 50 == 0:
                    with torch.no_grad():
                        acc = (model(x).argmax(1) == y).float().mean()  # expect: eval-without-eval-mode
                    model.train()
        """
    check(src, EV)
    (f,) = messages(src, "eval-without-eval-mode")
    assert "line 13" in f.message


def test_inline_evaluation_with_eval_or_without_train_is_fine():
    check(
        """
        import torch

        def fit(model, opt, make_batch, loss_fn, ema):
            for step in range(200):
                x, y = make_batch()
                opt.zero_grad()
                loss_fn(model(x), y).backward()
                opt.step()
                with torch.no_grad():
                    ema.update(model)
                if step % 50 == 0:
                    model.eval()
                    with torch.no_grad():
                        acc = (model(x).argmax(1) == y).float().mean()
                    model.train()
        """,
        EV,
    )


def test_eval_mode_context_manager_counts():
    check(
        """
        import torch
        from utils import eval_mode

        def evaluate(model, loader):
            with eval_mode(model), torch.no_grad():
                for x, y in loader:
                    out = model(x)
        """,
        EV,
    )


def test_model_loaded_by_a_helper_that_calls_eval_is_in_eval_mode():
    check(
        """
        import torch

        def load_model(path):
            model = Net()
            model.load_state_dict(torch.load(path))
            model.eval()
            return model.to("cuda")

        def load_frozen(path):
            return Net.from_checkpoint(path).eval()

        def evaluate(model, test_loader):
            with torch.no_grad():
                for x, y in test_loader:
                    out = model(x)

        def predict(path, test_loader):
            net = load_frozen(path)
            net = net.cuda()
            outputs = []
            with torch.no_grad():
                for x, _ in test_loader:
                    outputs.append(net(x))
            return outputs

        class Evaluator:
            def __init__(self, ckpt):
                self.model = self.restore(ckpt)

            def restore(self, path):
                m = Net()
                m.load_state_dict(torch.load(path))
                m.train(False)
                return m

            def validate(self, val_loader):
                with torch.no_grad():
                    for x, y in val_loader:
                        logits = self.model(x)

        def main(args):
            model = load_model(args.ckpt)
            evaluate(model, args.test_loader)
        """,
        EV,
    )


def test_model_loaded_by_a_helper_without_eval_is_still_reported():
    check(
        """
        import torch

        def load_model(path):
            model = Net()
            model.load_state_dict(torch.load(path))
            model.to("cuda")
            return model

        def evaluate(model, test_loader):
            with torch.no_grad():
                for x, y in test_loader:
                    out = model(x)  # expect: eval-without-eval-mode

        def main(args):
            model = load_model(args.ckpt)
            evaluate(model, args.test_loader)
        """,
        EV,
    )


def test_evaluation_loop_with_neither_no_grad_nor_eval():
    src = """
        import torch
        import torch.nn.functional as F

        def train(model, train_loader, optimizer):
            model.train()
            for x, y in train_loader:
                optimizer.zero_grad()
                F.cross_entropy(model(x), y).backward()
                optimizer.step()

        def validate(model, val_loader):
            correct = total = 0
            for x, y in val_loader:
                out = model(x)  # expect: eval-without-eval-mode
                correct += (out.argmax(1) == y).sum().item()
                total += y.numel()
            return correct / total

        def test(model, test_loader):
            predictions = []
            for x, _ in test_loader:
                predictions.append(model(x).argmax(1))  # expect: eval-without-eval-mode
            return predictions

        for epoch in range(10):
            train(net, train_loader, opt)
            print(validate(net, val_loader))
        with torch.no_grad():
            predictions = test(net, test_loader)
        """
    check(src, EV)
    found = {f.location.line: f.message for f in messages(src, "eval-without-eval-mode")}
    assert len(found) == 2
    assert "neither" in found[min(found)] and "no_grad" in found[min(found)]
    assert "under no_grad" in found[max(found)]  # the caller turns gradients off, nothing switches to eval


def test_training_loops_module_methods_and_evaluation_with_eval_are_fine():
    check(
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        def train_and_validate(model, val_loader, optimizer):
            for x, y in val_loader:
                optimizer.zero_grad()
                F.cross_entropy(model(x), y).backward()
                optimizer.step()

        def validate(model, val_loader):
            model.eval()
            correct = 0
            for x, y in val_loader:
                correct += (model(x).argmax(1) == y).sum().item()
            return correct

        def evaluate(model, test_loader):
            losses = []
            for x, y in test_loader:
                losses.append(F.cross_entropy(model(x), y).item())
            return sum(losses) / len(losses)

        def test(model, test_loader):
            torch.set_grad_enabled(False)
            outputs = []
            for x, _ in test_loader:
                outputs.append(model(x))
            return outputs

        class Decoder(nn.Module):
            def predict(self, tokens):
                for t in tokens:
                    tokens = self.net(tokens)
                return tokens

        def evaluate_policy(policy, env, episodes):  # a step() in the loop: treated as training, left alone
            total = 0.0
            for episode in range(episodes):
                obs, done = env.reset(), False
                while not done:
                    obs, reward, done, _ = env.step(policy(obs).argmax())
                    total += reward
            return total / episodes

        def fit(model, train_loader, test_loader, optimizer, epochs):
            for epoch in range(epochs):
                model.train()
                for x, y in train_loader:
                    optimizer.zero_grad()
                    F.cross_entropy(model(x), y).backward()
                    optimizer.step()
                model.eval()
                with torch.no_grad():
                    score = evaluate(model, test_loader)
        """,
        EV,
    )


def test_evaluation_loop_without_no_grad_in_a_file_that_does_not_train_is_left_alone():
    check(
        """
        import torch

        def evaluate(model, test_loader):
            for x, y in test_loader:
                out = model(x)
        """,
        EV,
    )
