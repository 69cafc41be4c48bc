"""The ``adam-eps-underflows-in-fp16`` rule (``mlsleuth/scan/rules/numerical/adam_eps_underflows_in_fp16.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"adam-eps-underflows-in-fp16"}


def test_default_eps_over_half_weights():
    src = """
    import torch
    from torch import nn
    from transformers import AutoModelForCausalLM

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 2)

    def train_half():
        model = Net().cuda().half()
        opt = torch.optim.Adam(model.parameters(), lr=1e-4)  # expect: adam-eps-underflows-in-fp16
        return opt

    def train_to_dtype():
        net = Net()
        net.to(torch.float16)
        return torch.optim.AdamW(net.parameters(), lr=1e-4, eps=1e-8)  # expect: adam-eps-underflows-in-fp16

    def train_hf(name):
        lm = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float16)
        params = [p for p in lm.parameters() if p.requires_grad]
        return torch.optim.RMSprop(params, lr=1e-5)  # expect: adam-eps-underflows-in-fp16
    """
    check(src, RULE)


def test_fp32_weights_large_eps_and_bf16_are_fine():
    src = """
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 2)

    def train_autocast():
        model = Net().cuda()
        opt = torch.optim.Adam(model.parameters(), lr=1e-4)
        scaler = torch.cuda.amp.GradScaler()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(torch.randn(4, 8)).sum()
        scaler.scale(loss).backward()
        return opt

    def train_half_big_eps(use_fp16):
        model = Net().half()
        opt = torch.optim.Adam(model.parameters(), lr=1e-4, eps=1e-4)
        opt2 = torch.optim.Adam(model.parameters(), lr=1e-4, eps=1e-4 if use_fp16 else 1e-8)
        return opt, opt2

    def train_bf16():
        model = Net().to(torch.bfloat16)
        return torch.optim.AdamW(model.parameters(), lr=1e-4)

    def export_after_training():
        model = Net()
        opt = torch.optim.Adam(model.parameters(), lr=1e-4)
        model.half()
        return opt

    def sgd_half():
        model = Net().half()
        return torch.optim.SGD(model.parameters(), lr=0.1)
    """
    check(src, RULE)


def test_helper_that_converts_the_model_through_a_method(tmp_path):
    files = {
        "util.py": """
            import torch
            from torch import nn

            class UNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(3, 3, 3)
                    self.dtype = torch.float32

                def convert_to_fp16(self):
                    self.half()
                    self.dtype = torch.float16

            def load_model(use_fp16=False, device="cpu"):
                model = UNet()
                if use_fp16:
                    model.convert_to_fp16()
                return model.to(device), torch.linspace(0, 1, 10)
        """,
        "train.py": """
            import argparse
            import torch
            from util import load_model

            def main():
                parser = argparse.ArgumentParser()
                parser.add_argument("--use_fp16", action="store_true")
                args = parser.parse_args()
                model, schedule = load_model(use_fp16=args.use_fp16)
                opt = torch.optim.AdamW(model.parameters(), lr=1e-5)  # expect: adam-eps-underflows-in-fp16
                fp32_model, _ = load_model(use_fp16=False)
                opt2 = torch.optim.AdamW(fp32_model.parameters(), lr=1e-5)
                default_model, _ = load_model()
                opt3 = torch.optim.AdamW(default_model.parameters(), lr=1e-5)
                return opt, opt2, opt3
        """,
    }
    check_project(tmp_path, files, RULE)
