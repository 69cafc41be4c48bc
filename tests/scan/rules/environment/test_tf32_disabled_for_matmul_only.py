"""The ``tf32-disabled-for-matmul-only`` rule (``mlsleuth/scan/rules/environment/tf32_disabled_for_matmul_only.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"tf32-disabled-for-matmul-only"}


def test_matmul_off_in_a_config_module_of_a_conv_project(tmp_path):
    config = """
    import torch

    def configure_precision():
        torch.backends.cuda.matmul.allow_tf32 = False  # expect: tf32-disabled-for-matmul-only
        torch.set_float32_matmul_precision("highest")
    """
    train = """
    import torch.nn as nn
    from config import configure_precision

    net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.GELU(), nn.Conv2d(8, 1, 3))
    configure_precision()
    """
    check_project(tmp_path, {"config.py": config, "train.py": train}, RULE)


def test_new_spelling_and_precision_call_alone():
    check(
        """
        import torch
        import torch.nn.functional as F

        torch.set_float32_matmul_precision("highest")  # expect: tf32-disabled-for-matmul-only

        def step(x, w):
            return F.conv2d(x, w)
        """,
        RULE,
    )


def test_both_switches_off_mlp_only_or_tf32_on_is_fine(tmp_path):
    check(
        """
        import torch
        import torch.nn as nn

        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        net = nn.Conv2d(3, 3, 3)
        """,
        RULE,
    )
    check(
        """
        import torch
        import torch.nn as nn

        torch.backends.fp32_precision = "ieee"
        torch.backends.cuda.matmul.fp32_precision = "ieee"
        net = nn.Conv1d(3, 3, 3)
        """,
        RULE,
    )
    check(
        """
        import torch
        import torch.nn as nn

        torch.backends.cuda.matmul.allow_tf32 = False   # an MLP: no convolutions anywhere
        mlp = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Linear(64, 1))
        """,
        RULE,
    )
    check(
        """
        import torch
        from torchvision.models import resnet50

        torch.backends.cuda.matmul.allow_tf32 = True
        net = resnet50()
        """,
        RULE,
    )


def test_a_language_model_test_in_a_project_with_convolutions_elsewhere_is_fine(tmp_path):
    vision = """
    import torch.nn as nn

    class PatchEmbed(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Conv2d(3, 64, 16, 16)
    """
    test = """
    import torch
    from gpt import GPT

    def test_batched_generation():
        old = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = False
        m = GPT().eval()
        torch.backends.cuda.matmul.allow_tf32 = old
    """
    gpt = "import torch.nn as nn\n\nclass GPT(nn.Module):\n    pass\n"
    check_project(tmp_path, {"vision.py": vision, "gpt.py": gpt, "tests/test_batch.py": test}, RULE)
