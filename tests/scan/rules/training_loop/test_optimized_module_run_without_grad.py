"""The ``optimized-module-run-without-grad`` rule (``mlsleuth/scan/rules/training_loop/optimized_module_run_without_grad.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"optimized-module-run-without-grad"}

_MODEL = """
    import torch
    import torch.nn as nn


    class VisionTower(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 8))
{deco}
        def forward(self, images):
            return self.encoder(images)


    class TinyVLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.vision_tower = VisionTower()
            self.connector = nn.Linear(8, 5)

        def forward(self, images):
{body}
"""
_CALL = "            return self.connector(self.vision_tower(images))"
_WITH = """            with torch.no_grad():{mark}
                feats = self.vision_tower(images)
            return self.connector(feats)"""

_CONFIG = """
    from dataclasses import dataclass


    @dataclass
    class TrainingArguments:
        tune_vision_tower: bool = {tune}
        tune_connector: bool = True
        learning_rate: float = 2e-3
"""

_TRAIN = """
    import torch

    from config import TrainingArguments
    from model import TinyVLM


    def build_optimizer(model, args):
        params = []
        if args.tune_vision_tower:
            params += list(model.vision_tower.parameters())
        if args.tune_connector:
            params += list(model.connector.parameters())
        return torch.optim.AdamW(params, lr=args.learning_rate)


    def main():
        args = TrainingArguments()
        model = TinyVLM()
        optimizer = build_optimizer(model, args)
        for x, y in []:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
"""


def _model(deco: str = "", body: str = _CALL) -> str:
    return _MODEL.format(deco=deco, body=body)


def test_decorated_forward_of_a_tower_the_config_trains(tmp_path):
    files = {
        "model.py": _model(deco="        @torch.no_grad()  # expect: optimized-module-run-without-grad"),
        "config.py": _CONFIG.format(tune=True),
        "train.py": _TRAIN,
    }
    check_project(tmp_path, files, RULE)


def test_owner_forward_runs_the_trained_tower_inside_no_grad(tmp_path):
    files = {
        "model.py": _model(body=_WITH.format(mark="  # expect: optimized-module-run-without-grad")),
        "config.py": _CONFIG.format(tune=True),
        "train.py": _TRAIN,
    }
    check_project(tmp_path, files, RULE)


def test_tower_frozen_by_the_config_is_fine(tmp_path):
    files = {
        "model.py": _model(body=_WITH.format(mark="")),
        "config.py": _CONFIG.format(tune=False),
        "train.py": _TRAIN,
    }
    check_project(tmp_path, files, RULE)


def test_optimizer_over_the_whole_model_with_a_frozen_tower_is_fine(tmp_path):
    files = {
        "model.py": _model(deco="        @torch.no_grad()"),
        "train.py": """
            import torch
            from model import TinyVLM

            model = TinyVLM()
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        """,
    }
    check_project(tmp_path, files, RULE)


def test_inference_mode_forward_in_a_param_group_in_one_file():
    src = """
    import torch
    import torch.nn as nn

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(16, 16)

        @torch.inference_mode()  # expect: optimized-module-run-without-grad
        def forward(self, x):
            return self.net(x)

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 2)

        def forward(self, x):
            return self.fc(x)

    encoder = Encoder()
    head = Head()
    optimizer = torch.optim.Adam([
        {"params": encoder.parameters(), "lr": 1e-5},
        {"params": head.parameters(), "lr": 1e-3},
    ])
    """
    check(src, RULE)


def test_teacher_under_no_grad_and_a_grad_toggle_are_fine():
    src = """
    import torch
    import torch.nn as nn

    class Teacher(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(16, 16)

        @torch.no_grad()
        def forward(self, x):
            return self.net(x)

    class Backbone(nn.Module):
        def __init__(self, trainable):
            super().__init__()
            self.net = nn.Linear(16, 16)
            self.trainable = trainable

        def forward(self, x):
            with torch.set_grad_enabled(self.trainable):
                return self.net(x)

    class Student(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = Backbone(trainable=True)
            self.head = nn.Linear(16, 2)

        def forward(self, x):
            return self.head(self.backbone(x))

    teacher = Teacher()
    student = Student()
    optimizer = torch.optim.SGD(list(student.backbone.parameters()) + list(student.head.parameters()), lr=0.1)
    """
    check(src, RULE)


def test_parameters_added_under_a_flag_the_code_does_not_fix_stay_silent():
    src = """
    import argparse
    import torch
    import torch.nn as nn

    class Tower(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(16, 16)

        @torch.no_grad()
        def forward(self, x):
            return self.net(x)

    parser = argparse.ArgumentParser()
    parser.add_argument("--tune_tower", action="store_true")
    args = parser.parse_args()
    tower = Tower()
    params = []
    if args.tune_tower:
        params += list(tower.parameters())
    optimizer = torch.optim.SGD(params, lr=0.1)
    """
    check(src, RULE)


def test_tower_built_by_a_builder_function_in_another_module(tmp_path):
    files = {
        "towers.py": """
            import torch
            import torch.nn as nn

            class ClipTower(nn.Module):
                def __init__(self, cfg):
                    super().__init__()
                    self.proj = nn.Linear(cfg.width, cfg.width)

                @torch.no_grad()  # expect: optimized-module-run-without-grad
                def forward(self, images):
                    return self.proj(images)

            def build_vision_tower(cfg):
                tower = ClipTower(cfg)
                return tower
        """,
        "model.py": """
            import torch.nn as nn
            from towers import build_vision_tower

            class Llava(nn.Module):
                def __init__(self, cfg):
                    super().__init__()
                    self.vision_tower = build_vision_tower(cfg)
                    self.projector = nn.Linear(cfg.width, cfg.hidden)

                def forward(self, images):
                    return self.projector(self.vision_tower(images))
        """,
        "train.py": """
            import torch
            from model import Llava

            def main(cfg):
                model = Llava(cfg)
                optimizer = torch.optim.AdamW([
                    {"params": model.vision_tower.parameters(), "lr": 2e-6},
                    {"params": model.projector.parameters(), "lr": 1e-3},
                ])
        """,
    }
    check_project(tmp_path, files, RULE)
