"""Function summaries (``mlsleuth/scan/analysis/function_summaries.py``): a loop that calls helpers of another module."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.function_summaries import effects

from scan.helpers import check_project, write_project

MODEL = """
    import torch.nn as nn

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.2))

        def val_start(self):
            self.body.eval()

        def train_start(self):
            self.body.train()
"""


def test_mode_switch_inside_a_method_of_another_module_counts_in_the_loop(tmp_path):
    files = {
        "model.py": MODEL,
        "train.py": """
            import torch
            from model import Encoder

            def main(loader, val_loader):
                model = Encoder()
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                model.train_start()
                for i, (x, y) in enumerate(loader):
                    opt.zero_grad()
                    model(x).sum().backward()
                    opt.step()
                    if i % 100 == 0:
                        model.val_start()  # expect: train-mode-not-restored
        """,
    }
    check_project(tmp_path, files, {"train-mode-not-restored"})


def test_mode_restored_by_a_method_of_another_module_is_fine(tmp_path):
    files = {
        "model.py": MODEL,
        "train.py": """
            import torch
            from model import Encoder

            def main(loader, val_loader):
                model = Encoder()
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                for i, (x, y) in enumerate(loader):
                    model.train_start()
                    opt.zero_grad()
                    model(x).sum().backward()
                    opt.step()
                    if i % 100 == 0:
                        model.val_start()
        """,
    }
    check_project(tmp_path, files, {"train-mode-not-restored"})


TRAINER = """
    class Stepper:
        def __init__(self, model, optimizer):
            self.model = model
            self.optimizer = optimizer

        def forward_backward(self, batch):
            {clear}
            loss = self.model(batch).mean()
            loss.backward()
            return loss.item()
"""

LOOP = """
    import torch
    from stepper import Stepper

    def fit(model, loader, epochs):
        opt = torch.optim.Adam(model.parameters())
        stepper = Stepper(model, opt)
        for epoch in range(epochs):
            for batch in loader:{mark}
                stepper.forward_backward(batch)
                opt.step()
"""


def test_summary_of_a_method_called_on_an_instance(tmp_path):
    write_project(tmp_path, {"stepper.py": TRAINER.replace("{clear}", "self.optimizer.zero_grad()")})
    from mlsleuth.scan.analysis.project import ProjectIndex

    path = str(tmp_path / "stepper.py")
    index = ProjectIndex({path: "stepper.py"}, [str(tmp_path)])
    ctx = index.context(path)
    cls = next(n for n in ctx.tree.body if isinstance(n, ast.ClassDef))
    kinds = [(e.kind, e.subject) for e in effects(ctx, ctx.method(cls, "forward_backward"))]
    assert kinds == [("zero_grad", "self"), ("backward", None)]


def test_loop_rules_see_the_events_of_a_method_in_another_module(tmp_path):
    # the helper runs backward but never clears gradients: the loop that steps after calling it
    # once per batch is reported in its own file (its gate reads "backward" and the step there)
    check_project(
        tmp_path,
        {"stepper.py": TRAINER.replace("{clear}", "pass"), "train.py": LOOP.replace("{mark}", "  # expect: missing-zero-grad")},
        {"missing-zero-grad"},
    )


def test_loop_calling_a_helper_that_clears_gradients_is_fine(tmp_path):
    check_project(
        tmp_path,
        {"stepper.py": TRAINER.replace("{clear}", "self.optimizer.zero_grad()"), "train.py": LOOP.replace("{mark}", "")},
        {"missing-zero-grad"},
    )
