"""The ``loss-rewrapped-after-graph-cut`` rule (``mlsleuth/scan/rules/training_loop/loss_rewrapped_after_graph_cut.py``)."""

from __future__ import annotations

from scan.helpers import check

LOSS = {"loss-accumulated-with-graph", "loss-rewrapped-after-graph-cut"}


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


def test_rewrapped_number_from_a_numpy_metric_in_another_module(tmp_path):
    from scan.helpers import check_project

    check_project(
        tmp_path,
        {
            "metrics.py": """
                def dice_loss(pred, target):
                    p = pred.detach().cpu().numpy()
                    t = target.cpu().numpy()
                    return 1 - 2 * (p * t).sum() / (p.sum() + t.sum() + 1e-6)
                """,
            "train.py": """
                import torch
                from metrics import dice_loss

                def train(model, loader, opt):
                    for x, y in loader:
                        out = torch.sigmoid(model(x))
                        d = dice_loss(out, y)
                        loss = torch.tensor(d, requires_grad=True)  # expect: loss-rewrapped-after-graph-cut
                        opt.zero_grad()
                        loss.backward()
                        opt.step()
                """,
        },
        {"loss-rewrapped-after-graph-cut"},
    )


def test_tensor_loss_from_a_helper_of_another_module_is_fine(tmp_path):
    from scan.helpers import check_project

    check_project(
        tmp_path,
        {
            "metrics.py": """
                def dice_loss(pred, target):
                    inter = (pred * target).sum()
                    return 1 - 2 * inter / (pred.sum() + target.sum() + 1e-6)
                """,
            "train.py": """
                import torch
                from metrics import dice_loss

                def train(model, loader, opt):
                    for x, y in loader:
                        out = torch.sigmoid(model(x))
                        loss = dice_loss(out, y)
                        logged = torch.tensor(float(loss), requires_grad=False)
                        opt.zero_grad()
                        loss.backward()
                        opt.step()
                """,
        },
        {"loss-rewrapped-after-graph-cut"},
    )
