"""The ``ema-skips-buffers`` rule (``mlsleuth/scan/rules/training_loop/ema_skips_buffers.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

ESB = {"ema-skips-buffers"}


def test_script_ema_of_a_resnet_evaluated_in_eval_mode():
    check(
        """
        import copy
        import torch
        import torchvision

        model = torchvision.models.resnet18(num_classes=10)
        ema_model = copy.deepcopy(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in loader:
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
            opt.zero_grad()
            with torch.no_grad():
                for e, p in zip(ema_model.parameters(), model.parameters()):
                    e.mul_(0.999).add_(p, alpha=0.001)  # expect: ema-skips-buffers
        ema_model.eval()
        evaluate(ema_model, val_loader)
        """,
        ESB,
    )


def test_ema_class_copied_in_eval_mode():
    check(
        """
        import copy
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Sequential(nn.Conv2d(3, 16, 3), nn.BatchNorm2d(16), nn.ReLU())
                self.head = nn.Linear(16, 10)

        class ModelEma:
            def __init__(self, model, decay=0.9998):
                self.module = copy.deepcopy(model).eval()
                self.decay = decay

            @torch.no_grad()
            def update(self, model):
                for ema_v, model_v in zip(self.module.parameters(), model.parameters()):
                    ema_v.lerp_(model_v, 1.0 - self.decay)  # expect: ema-skips-buffers
        """,
        ESB,
    )


def test_momentum_helper_called_with_an_eval_teacher():
    got = findings(
        """
        import copy
        import torch
        from torch import nn

        def momentum_update(student, teacher, m=0.99):
            for (_, ps), (_, pt) in zip(student.named_parameters(), teacher.named_parameters()):
                pt.data = m * pt.data + (1 - m) * ps.data

        student = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))
        teacher = copy.deepcopy(student)
        teacher.eval()
        for x in loader:
            pseudo = teacher(x).argmax(1)
            momentum_update(student, teacher)
        """,
        "ema-skips-buffers",
    )
    assert len(got) == 1 and "`teacher`" in got[0].message


def test_buffers_copied_or_state_dict_averaged_stay_silent():
    check(
        """
        import copy
        import torch
        import torchvision

        model = torchvision.models.resnet18()
        ema = copy.deepcopy(model).eval()

        @torch.no_grad()
        def update(ema, model, d=0.999):
            for e, p in zip(ema.parameters(), model.parameters()):
                e.mul_(d).add_(p, alpha=1 - d)
            for be, b in zip(ema.buffers(), model.buffers()):
                be.copy_(b)
        """,
        ESB,
    )
    check(
        """
        import copy
        import torch
        import torchvision

        model = torchvision.models.resnet50()
        ema = copy.deepcopy(model).eval()

        @torch.no_grad()
        def update(ema, model, d=0.999):
            for e, p in zip(ema.state_dict().values(), model.state_dict().values()):
                if e.dtype.is_floating_point:
                    e.mul_(d).add_(p, alpha=1 - d)
        """,
        ESB,
    )


def test_teacher_run_in_train_mode_or_without_batch_norm_stays_silent():
    # MoCo / BYOL / mean teacher: the momentum encoder runs in train mode and updates its own statistics
    check(
        """
        import copy
        import torch
        import torchvision

        encoder_q = torchvision.models.resnet50()
        encoder_k = copy.deepcopy(encoder_q)
        for x in loader:
            encoder_q.train()
            encoder_k.train()
            with torch.no_grad():
                for q, k in zip(encoder_q.parameters(), encoder_k.parameters()):
                    k.data = k.data * 0.999 + q.data * 0.001
                keys = encoder_k(x)
        encoder_k.eval()
        """,
        ESB,
    )
    # a transformer has LayerNorm only: no running statistics to go stale
    check(
        """
        import copy
        import torch
        from torch import nn

        model = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4), 2)
        ema = copy.deepcopy(model).eval()
        for x in loader:
            with torch.no_grad():
                for e, p in zip(ema.parameters(), model.parameters()):
                    e.lerp_(p, 0.001)
        """,
        ESB,
    )


def test_shadow_list_and_submodule_ema_stay_silent():
    # diffusers-style shadow tensors copied into the live model (whose buffers are current) for evaluation
    check(
        """
        import torch
        import torchvision

        model = torchvision.models.resnet18()

        class EMAModel:
            def __init__(self, parameters, decay=0.999):
                self.shadow_params = [p.clone().detach() for p in parameters]
                self.decay = decay

            def step(self, parameters):
                for s, p in zip(self.shadow_params, parameters):
                    s.sub_((1 - self.decay) * (s - p))

            def copy_to(self, parameters):
                for s, p in zip(self.shadow_params, parameters):
                    p.data.copy_(s.data)

        model.eval()
        """,
        ESB,
    )
    # an EMA held by a LightningModule: the trainer's train()/eval() switch it with its parent
    check(
        """
        import copy
        import torch
        import lightning as L
        import torchvision

        class Module(L.LightningModule):
            def __init__(self):
                super().__init__()
                self.net = torchvision.models.resnet18()
                self.ema = copy.deepcopy(self.net).eval()

            def on_train_batch_end(self, *args):
                for e, p in zip(self.ema.parameters(), self.net.parameters()):
                    e.lerp_(p, 0.001)
        """,
        ESB,
    )
