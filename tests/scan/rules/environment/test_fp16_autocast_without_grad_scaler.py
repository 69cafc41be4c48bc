"""The ``fp16-autocast-without-grad-scaler`` rule (``mlsleuth/scan/rules/environment/fp16_autocast_without_grad_scaler.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"fp16-autocast-without-grad-scaler"}


def test_float16_autocast_in_training_without_a_scaler():
    src = """
        import torch
        import torch.nn.functional as F

        def train_epoch(model, loader, opt):
            model.train()
            for x, y in loader:
                x, y = x.cuda(), y.cuda()
                with torch.autocast(device_type="cuda", dtype=torch.float16):  # expect: fp16-autocast-without-grad-scaler
                    loss = F.cross_entropy(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()

        def legacy(model, loader, opt):
            for x, y in loader:
                with torch.cuda.amp.autocast():  # expect: fp16-autocast-without-grad-scaler
                    loss = model(x).sub(y).abs().mean()
                loss.backward()
                opt.step()
                opt.zero_grad()
        """
    check(src, RULE)


def test_default_dtype_on_a_cuda_device_variable():
    src = """
        import torch
        from torch.amp import autocast

        device = torch.device("cuda")

        def step(model, batch, opt):
            with autocast(device_type=device.type):  # expect: fp16-autocast-without-grad-scaler
                loss = model(batch.to(device)).mean()
            loss.backward()
            opt.step()
        """
    check(src, RULE)


def test_silent_with_scaler_bf16_cpu_eval_or_a_scaler_in_another_module(tmp_path):
    src = """
        import torch

        def with_scaler(model, loader, opt):
            scaler = torch.amp.GradScaler("cuda")
            for x, y in loader:
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = model(x, y)
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
        """
    check(src, RULE)
    other = """
        import torch

        def bf16(model, loader, opt):
            for x, y in loader:
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = model(x, y)
                loss.backward()
                opt.step()

        def on_cpu(model, loader, opt):
            for x, y in loader:
                with torch.autocast("cpu"):
                    loss = model(x, y)
                loss.backward()
                opt.step()

        def evaluate(model, loader):
            with torch.no_grad():
                for x, y in loader:
                    with torch.autocast("cuda"):
                        print(model(x, y).item())

        def inference(model, x):
            with torch.autocast("cuda", dtype=torch.float16):
                return model(x)

        def train(model, loader, opt):
            for x, y in loader:
                loss = model(x, y)
                loss.backward()
                opt.step()
        """
    check(other, RULE)
    check_project(
        tmp_path,
        {
            "amp_utils.py": """
                import torch

                scaler = torch.amp.GradScaler("cuda")

                def backward_step(loss, opt):
                    scaler.scale(loss).backward()
                    scaler.step(opt)
                    scaler.update()
                """,
            "train.py": """
                import torch
                from amp_utils import backward_step

                def fit(model, loader, opt):
                    for x, y in loader:
                        with torch.autocast("cuda", dtype=torch.float16):
                            loss = model(x, y)
                        backward_step(loss, opt)
                        loss.detach().backward  # attribute only, not a call
                """,
        },
        RULE,
    )
