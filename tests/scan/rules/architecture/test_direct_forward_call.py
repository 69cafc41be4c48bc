"""The ``direct-forward-call`` rule (``mlsleuth/scan/rules/architecture/direct_forward_call.py``)."""

from __future__ import annotations

from scan.helpers import check

FW = {"direct-forward-call"}


def test_direct_forward_call_in_training_loop():
    check(
        """
        import torch

        def train(model, loader, opt):
            model.train()
            for x, y in loader:
                opt.zero_grad()
                out = model.forward(x)  # expect: direct-forward-call
                torch.nn.functional.mse_loss(out, y).backward()
                opt.step()
        """,
        FW,
    )


def test_forward_inside_modules_super_and_ddp_is_fine():
    check(
        """
        import torch
        from torch import nn
        from torch.nn.parallel import DistributedDataParallel as DDP

        class Wrapper(nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                return self.inner.forward(x) + super().forward(x)

        def train(net, loader, opt):
            model = DDP(net)
            model.train()
            for x in loader:
                opt.zero_grad()
                model.forward(x).sum().backward()
                opt.step()
        """,
        FW,
    )


def test_severity_follows_whether_anything_lives_in_the_hooks(tmp_path):
    from scan.helpers import findings

    plain = """
    import torch

    def train(model, loader, opt):
        model.train()
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model.forward(x), y).backward()
            opt.step()
    """
    (f,) = findings(plain, "direct-forward-call")
    assert f.severity == "info"  # a plain script: no hook is skipped yet
    hooked = plain + """
    def watch(net, log):
        net.register_forward_hook(lambda mod, inp, out: log.append(out.norm().item()))
    """
    (f,) = findings(hooked, "direct-forward-call")
    assert f.severity == "warning"
    normed = plain.replace("import torch\n", "import torch\n    from torch.nn.utils import weight_norm\n")
    (f,) = findings(normed, "direct-forward-call")
    assert f.severity == "warning"
