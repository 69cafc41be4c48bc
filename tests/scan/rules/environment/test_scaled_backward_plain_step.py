"""The ``scaled-backward-plain-step`` rule (``mlsleuth/scan/rules/environment/scaled_backward_plain_step.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"scaled-backward-plain-step"}


def test_scaled_backward_then_plain_optimizer_step():
    src = """
        import torch

        def fit(model, loader, epochs):
            opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            scaler = torch.cuda.amp.GradScaler()
            for _ in range(epochs):
                for x, y in loader:
                    with torch.autocast("cuda"):
                        loss = torch.nn.functional.cross_entropy(model(x), y)
                    opt.zero_grad(set_to_none=True)
                    scaler.scale(loss).backward()
                    opt.step()  # expect: scaled-backward-plain-step
                    scaler.update()
        """
    check(src, RULE)


def test_step_in_a_helper_of_another_module(tmp_path):
    check_project(
        tmp_path,
        {
            "engine.py": """
                def apply(optimizer):
                    optimizer.step()
                    optimizer.zero_grad()
                """,
            "train.py": """
                import torch
                from engine import apply

                scaler = torch.amp.GradScaler("cuda", init_scale=1024)

                def run(model, opt, batches):
                    for x, y in batches:
                        with torch.autocast("cuda", dtype=torch.float16):
                            loss = (model(x) - y).pow(2).mean()
                        scaler.scale(loss).backward()
                        apply(opt)  # expect: scaled-backward-plain-step
                """,
        },
        RULE,
    )


def test_correct_scaler_use_and_lookalikes_stay_silent():
    src = """
        import torch

        def good(model, opt, loader, scaler):
            for x, y in loader:
                with torch.autocast("cuda"):
                    loss = model(x, y)
                scaler.scale(loss).backward()
                scaler.unscale_(opt)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(opt)
                scaler.update()
                opt.zero_grad()

        def disabled(model, opt, loader):
            scaler = torch.amp.GradScaler("cuda", enabled=False)
            for x, y in loader:
                scaler.scale(model(x, y)).backward()
                opt.step()
                opt.zero_grad()

        def static_scale(model, opt, loader, scale=1024.0):
            for x, y in loader:
                (model(x, y) * scale).backward()
                for p in model.parameters():
                    p.grad.div_(scale)
                opt.step()
                opt.zero_grad()

        def unscaled_first(model, opt, loader, scaler):
            for x, y in loader:
                scaler.scale(model(x, y)).backward()
                scaler.unscale_(opt)
                opt.step()
                opt.zero_grad()
        """
    check(src, RULE)
