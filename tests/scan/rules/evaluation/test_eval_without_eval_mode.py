"""The ``eval-without-eval-mode`` rule (``mlsleuth/scan/rules/evaluation/eval_without_eval_mode.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

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


def test_nested_validation_helper_called_after_eval_is_fine():
    src = """
        import torch

        def validate(val_loader, model, criterion):
            def run_validate(loader):
                with torch.no_grad():
                    for images, target in loader:
                        output = model(images)
                        criterion(output, target)

            model.eval()
            run_validate(val_loader)
        """
    check(src, {"eval-without-eval-mode"})


def test_nested_validation_helper_never_preceded_by_eval_fires():
    src = """
        import torch

        def validate(val_loader, model, criterion):
            def run_validate(loader):
                with torch.no_grad():
                    for images, target in loader:
                        output = model(images)  # expect: eval-without-eval-mode
                        criterion(output, target)

            run_validate(val_loader)
        """
    check(src, {"eval-without-eval-mode"})


MODE_FREE_MODEL = """
    import torch.nn as nn

    class Upscaler(nn.Module):
        def __init__(self, factor: int, channels=64):
            super().__init__()
            self.width = channels
            self.conv1 = nn.Conv2d(1, channels, 5, padding=2)
            self.conv2 = nn.Conv2d(channels, factor ** 2, 3, padding=1)
            self.act = nn.ReLU()
            self.shuffle = nn.PixelShuffle(factor)

        def forward(self, x):
            return self.shuffle(self.conv2(self.act(self.conv1(x))))
"""

TEST_LOOP = """
    import torch
    from model import Upscaler

    model = Upscaler(3).to("cpu")
    opt = torch.optim.Adam(model.parameters())

    def train(loader):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()

    def test(test_loader):
        with torch.no_grad():
            for x, y in test_loader:
                prediction = model(x){mark}
"""


def test_model_without_dropout_or_batchnorm_needs_no_eval_mode(tmp_path):
    from scan.helpers import check_project

    check_project(tmp_path, {"model.py": MODE_FREE_MODEL, "main.py": TEST_LOOP.replace("{mark}", "")}, {"eval-without-eval-mode"})


def test_model_with_batchnorm_in_another_file_still_needs_eval_mode(tmp_path):
    from scan.helpers import check_project

    with_bn = MODE_FREE_MODEL.replace("self.act = nn.ReLU()", "self.act = nn.Sequential(nn.BatchNorm2d(channels), nn.ReLU())")
    files = {"model.py": with_bn, "main.py": TEST_LOOP.replace("{mark}", "  # expect: eval-without-eval-mode")}
    check_project(tmp_path, files, {"eval-without-eval-mode"})


def test_layers_kept_in_a_plain_list_or_passed_in_are_unknown_so_the_rule_still_fires(tmp_path):
    from scan.helpers import check_project

    hidden = MODE_FREE_MODEL.replace("self.width = channels", "self.extra = extra").replace("channels=64)", "channels=64, extra=None)")
    files = {"model.py": hidden, "main.py": TEST_LOOP.replace("{mark}", "  # expect: eval-without-eval-mode")}
    check_project(tmp_path, files, {"eval-without-eval-mode"})


def test_model_reading_self_training_needs_eval_mode():
    src = """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return F.dropout(self.fc(x), 0.5, training=self.training)

        model = Net()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in train_loader:
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()

        def evaluate(loader):
            with torch.no_grad():
                for x, y in loader:
                    out = model(x)  # expect: eval-without-eval-mode
        """
    check(src, {"eval-without-eval-mode"})


def test_a_model_fresh_from_hugging_face_from_pretrained_is_in_eval_mode():
    # from_pretrained hands the model back in eval mode; one that is fine-tuned (train()) first is not
    check(
        """
        import torch
        from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification

        def evaluate(name, batches):
            model = AutoModelForCausalLM.from_pretrained(name)
            total = 0.0
            with torch.no_grad():
                for ids in batches:
                    total += model(ids, labels=ids).loss.item()
            return total / len(batches)

        def finetune_then_test(name, train_batches, test_batches):
            model = AutoModelForSequenceClassification.from_pretrained(name)
            opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
            model.train()
            for ids, labels in train_batches:
                model(ids, labels=labels).loss.backward()
                opt.step()
                opt.zero_grad()
            correct = 0
            with torch.no_grad():
                for ids, labels in test_batches:
                    correct += (model(ids).logits.argmax(-1) == labels).sum().item()  # expect: eval-without-eval-mode
            return correct
        """,
        EV,
    )


def test_a_model_whose_class_cannot_be_read_is_info_only():
    # the classifier's module is not part of what was scanned: whether it has dropout or batch-norm is unknown
    src = """
        import torch
        import torchvision
        from tiny_nets import BagOfWordsClassifier

        net = BagOfWordsClassifier(vocab=5000, classes=4)
        cnn = torchvision.models.resnet18(num_classes=4)
        opt = torch.optim.Adam(list(net.parameters()) + list(cnn.parameters()))
        for epoch in range(3):
            for words, images, labels in train_loader:
                loss = torch.nn.functional.cross_entropy(net(words) + cnn(images), labels)
                opt.zero_grad()
                loss.backward()
                opt.step()
            with torch.no_grad():
                for words, labels in val_loader:
                    print((net(words).argmax(1) == labels).float().mean())  # expect: eval-without-eval-mode
                for images, labels in val_loader:
                    print((cnn(images).argmax(1) == labels).float().mean())  # expect: eval-without-eval-mode
        """
    check(src, EV)
    first, second = messages(src, "eval-without-eval-mode")
    assert first.severity == "info" and "tiny_nets" in first.message
    assert second.severity == "warning"


def test_recurrent_classifier_whose_sizes_are_constructor_parameters_is_mode_free():
    # a tutorial sequence classifier: the constructor keeps its sizes (parameters with no default or annotation)
    # and builds an LSTM without dropout and a Linear head; nothing in it depends on train/eval
    src = """
        import torch
        from torch import nn

        class SeqNet(nn.Module):
            def __init__(self, input_size, hidden_size, num_layers, num_classes):
                super().__init__()
                self.hidden_size = hidden_size
                self.num_layers = num_layers
                self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, bidirectional=True)
                self.fc = nn.Linear(hidden_size * 2, num_classes)

            def forward(self, x):
                out, _ = self.lstm(x)
                return self.fc(out[:, -1, :])

        model = SeqNet(28, 128, 2, 10)
        opt = torch.optim.Adam(model.parameters())
        for x, y in train_loader:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()

        with torch.no_grad():
            for x, y in test_loader:
                pred = model(x).argmax(1)
        """
    check(src, EV)
    # a constructor parameter kept on self but never used as a size could hold a module: still reported
    held = src.replace("self.num_layers = num_layers", "self.block = num_layers").replace(
        "nn.LSTM(input_size, hidden_size, num_layers,", "nn.LSTM(input_size, hidden_size, 2,").replace(
        "pred = model(x).argmax(1)", "pred = model(x).argmax(1)  # expect: eval-without-eval-mode")
    check(held, EV)
