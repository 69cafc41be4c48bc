"""The ``inference-without-eval-mode`` rule (``mlsleuth/scan/rules/evaluation/inference_without_eval_mode.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"inference-without-eval-mode"}


def test_weights_loaded_and_model_run_under_no_grad_without_eval():
    src = """
        import torch
        import torchvision
        from model import ShuffleNet

        def infer(path, x):
            net = ShuffleNet(num_classes=10)
            net.load_state_dict(torch.load(path)["state_dict"])  # expect: inference-without-eval-mode
            with torch.no_grad():
                return torch.softmax(net(x), dim=1)

        def classify(path, x):
            backbone = torchvision.models.resnet18()
            backbone.load_state_dict(torch.load(path))  # expect: inference-without-eval-mode
            with torch.inference_mode():
                return backbone(x).argmax(1)
        """
    check(src, RULE)


def test_eval_train_false_training_scripts_and_mode_free_models_are_fine(tmp_path):
    files = {
        "nets.py": """
            import torch.nn as nn

            class Upscaler(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(1, 4, 3, padding=1)
                    self.shuffle = nn.PixelShuffle(2)

                def forward(self, x):
                    return self.shuffle(self.conv(x))
        """,
        "infer.py": """
            import torch
            from model import ShuffleNet
            from nets import Upscaler

            def infer(path, x):
                net = ShuffleNet(num_classes=10)
                net.load_state_dict(torch.load(path))
                net.train(False)
                with torch.no_grad():
                    return net(x)

            def upscale(path, x):
                up = Upscaler()
                up.load_state_dict(torch.load(path))
                with torch.no_grad():
                    return up(x)
        """,
        "test_convert.py": """
            import torch
            from model import ShuffleNet

            def test_converted_weights_match(path, x):
                ours = ShuffleNet(num_classes=10)
                ours.load_state_dict(torch.load(path))
                with torch.no_grad():
                    assert ours(x).shape == (1, 10)
        """,
        "finetune.py": """
            import torch
            from model import ShuffleNet

            def finetune(path, loader, opt):
                net = ShuffleNet(num_classes=10)
                net.load_state_dict(torch.load(path))
                with torch.no_grad():
                    base = net(next(iter(loader))[0])
                for x, y in loader:
                    opt.zero_grad()
                    net(x).sum().backward()
                    opt.step()
        """,
    }
    check_project(tmp_path, files, RULE)


def test_model_handed_to_a_wrapper_in_another_module_that_predicts_under_no_grad(tmp_path):
    from scan.helpers import check_project

    check_project(
        tmp_path,
        {
            "nets.py": """
                import torch.nn as nn

                class Policy(nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.body = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten())
                        self.head = nn.LazyLinear(4)

                    def forward(self, x):
                        return self.head(self.body(x))

                class Plain(nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.body = nn.Sequential(nn.Conv2d(3, 8, 3), nn.GroupNorm(2, 8), nn.ReLU(), nn.Flatten())

                    def forward(self, x):
                        return self.body(x)
                """,
            "agent.py": """
                import torch

                class Actor:
                    def __init__(self, net, device="cpu"):
                        self.net = net  # expect: inference-without-eval-mode
                        self.device = device

                    def act(self, obs):
                        with torch.no_grad():
                            return self.net(torch.as_tensor(obs)[None]).argmax(-1).item()

                class Scorer:
                    def __init__(self, net):
                        self.net = net

                    def score(self, x):
                        with torch.no_grad():
                            return self.net(x)

                class Evaluated:
                    def __init__(self, net):
                        self.net = net.eval()

                    def act(self, obs):
                        with torch.no_grad():
                            return self.net(obs)
                """,
            "run.py": """
                import torch
                from agent import Actor, Evaluated, Scorer
                from nets import Plain, Policy

                def main(path):
                    model = Policy()
                    model.load_state_dict(torch.load(path))
                    actor = Actor(model)
                    plain = Plain()
                    plain.load_state_dict(torch.load(path))
                    scorer = Scorer(plain)
                    other = Policy()
                    other.load_state_dict(torch.load(path))
                    evaluated = Evaluated(other)
                    return actor, scorer, evaluated

                def main_eval(path):
                    model = Policy()
                    model.load_state_dict(torch.load(path))
                    model.eval()
                    return Scorer(model)
                """,
        },
        {"inference-without-eval-mode"},
    )
