"""The ``class-axis-of-size-one`` rule (``mlsleuth/scan/rules/evaluation/class_axis_of_size_one.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"class-axis-of-size-one"}


def test_argmax_and_softmax_over_a_single_logit():
    src = """
        import torch
        import torch.nn.functional as F
        from torch import nn

        class Probe(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.fc = nn.Linear(d, 1)

            def forward(self, x):
                return self.fc(x)

        probe = Probe(64).to("cpu")

        def accuracy(x, y):
            logits = probe(x)
            pred = torch.argmax(logits, dim=1)  # expect: class-axis-of-size-one
            conf = F.softmax(logits.detach(), dim=-1)  # expect: class-axis-of-size-one
            return (pred == y).float().mean(), conf
    """
    check(src, RULE)


def test_cross_entropy_on_a_sequential_ending_in_one_unit():
    src = """
        from torch import nn

        class Churn(nn.Module):
            def __init__(self, n_features):
                super().__init__()
                self.net = nn.Sequential(nn.Linear(n_features, 32), nn.ReLU(), nn.Linear(32, 1), nn.Sigmoid())
                self.criterion = nn.CrossEntropyLoss()

            def forward(self, x):
                return self.net(x)

            def training_step(self, batch):
                x, y = batch
                out = self(x)
                return self.criterion(out, y)  # expect: class-axis-of-size-one
    """
    check(src, RULE)


def test_one_output_model_in_another_file(tmp_path):
    check_project(tmp_path, {
        "model.py": """
            from torch import nn

            class Scorer(nn.Module):
                def __init__(self, d):
                    super().__init__()
                    self.head = nn.Linear(in_features=d, out_features=1)

                def forward(self, h):
                    return self.head(h).float()
        """,
        "evaluate.py": """
            import torch
            from model import Scorer

            model = Scorer(128)

            def predict(batch):
                with torch.no_grad():
                    return model(batch).argmax(-1)  # expect: class-axis-of-size-one
        """,
    }, RULE)


def test_binary_heads_used_correctly_are_quiet():
    src = """
        import torch
        import torch.nn.functional as F
        from torch import nn

        class Binary(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.fc = nn.Linear(d, 1)
                self.att = nn.Linear(d, 1)
                self.cls = nn.Linear(d, 10)

            def forward(self, h):  # h: (N, T, d)
                w = F.softmax(self.att(h), dim=1)  # attention pooling over T: weights (N, T, 1)
                pooled = (w * h).sum(1)
                return self.fc(pooled), self.cls(pooled)

        model = Binary(32)
        crit = nn.CrossEntropyLoss()

        def step(h, y_bin, y_cls):
            logit, scores = model(h)
            pred = (torch.sigmoid(logit) > 0.5).long()
            flat = logit.squeeze(1)
            best = flat.argmax(0)  # the highest-scoring sample of the batch
            loss = F.binary_cross_entropy_with_logits(flat, y_bin) + crit(scores, y_cls)
            top = scores.argmax(dim=1)
            return loss, pred, best, top
    """
    check(src, RULE)


def test_unknown_width_and_other_libraries_are_quiet():
    src = """
        import torch
        from torch import nn

        def build(n_out):
            return nn.Linear(64, n_out)

        head = build(1)
        other = nn.Linear(64, num_classes := 5)

        def predict(x, layer):
            return torch.argmax(layer(x), dim=1), torch.argmax(head(x), 1), other(x).argmax(-1)
    """
    check(src, RULE)
