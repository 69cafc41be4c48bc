"""The ``frozen-batchnorm-reset-by-train`` rule (``mlsleuth/scan/rules/training_loop/frozen_batchnorm_reset_by_train.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"frozen-batchnorm-reset-by-train"}

MODEL = """
    from torch import nn

    class Seg(nn.Module):
        def __init__(self, classes=21, freeze_bn=True):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
            self.head = nn.Conv2d(8, classes, 1)
            if freeze_bn:
                self.freeze_bn()

        def freeze_bn(self):
            for m in self.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()

        def forward(self, x):
            return self.head(self.body(x))
"""


def test_train_mode_undoes_the_freeze(tmp_path):
    files = {
        "model.py": MODEL,
        "train.py": """
            from model import Seg

            def main(loader, opt, epochs):
                model = Seg(freeze_bn=True)
                for epoch in range(epochs):
                    model.train()  # expect: frozen-batchnorm-reset-by-train
                    for x, y in loader:
                        opt.zero_grad()
                        model(x).mean().backward()
                        opt.step()
            """,
    }
    check_project(tmp_path, files, RULE)


def test_refrozen_switched_off_or_overridden_train_are_fine(tmp_path):
    files = {
        "model.py": MODEL + """
    class SegKeepsFrozen(Seg):
        def train(self, mode=True):
            super().train(mode)
            self.freeze_bn()
            return self
""",
        "train.py": """
            from model import Seg, SegKeepsFrozen

            def refreeze(loader, epochs):
                model = Seg()
                for epoch in range(epochs):
                    model.train()
                    model.freeze_bn()

            def unfrozen(loader, epochs):
                model = Seg(freeze_bn=False)
                for epoch in range(epochs):
                    model.train()

            def overridden(loader, epochs):
                model = SegKeepsFrozen()
                for epoch in range(epochs):
                    model.train()
            """,
    }
    check_project(tmp_path, files, RULE)


def test_one_file_script():
    src = """
    from torch import nn

    class Detector(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8))
            self._freeze_norms()

        def _freeze_norms(self):
            for m in self.backbone.modules():
                if isinstance(m, (nn.BatchNorm2d, nn.SyncBatchNorm)):
                    m.eval()

    def main(loader, epochs):
        net = Detector()
        for epoch in range(epochs):
            net.train()  # expect: frozen-batchnorm-reset-by-train
    """
    check(src, RULE)
