"""Optimizer rules: coupled Adam weight decay, optimizers that miss trainable parameters."""

from __future__ import annotations

from rules_b_helpers import check, messages

WD = {"adam-coupled-weight-decay"}


def test_adam_with_weight_decay_is_info():
    src = """
        from torch import optim
        import torch.optim as O

        def make(model):
            wd = 0.05
            a = optim.Adam(model.parameters(), lr=1e-3, weight_decay=0.01)  # expect: adam-coupled-weight-decay
            b = O.Adam(model.parameters(), weight_decay=wd)  # expect: adam-coupled-weight-decay
            return a, b
        """
    check(src, WD)
    assert {f.severity for f in messages(src, "adam-coupled-weight-decay")} == {"info"}


def test_adamw_zero_decay_and_decoupled_flag_are_fine():
    check(
        """
        import torch

        def make(model, args):
            no_decay = 0.0
            a = torch.optim.AdamW(model.parameters(), weight_decay=0.01)
            b = torch.optim.Adam(model.parameters(), weight_decay=0)
            c = torch.optim.Adam(model.parameters(), weight_decay=0.01, decoupled_weight_decay=True)
            d = torch.optim.AdamW(model.parameters(), weight_decay=args.wd)
            e = torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=5e-4)
            f = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=0.0)
            g = torch.optim.Adam(model.parameters(), weight_decay=no_decay)
            h = torch.optim.Adam(model.parameters(), weight_decay=args.wd, decoupled_weight_decay=True)
            return a, b, c, d, e, f, g, h
        """,
        WD,
    )


def test_adam_weight_decay_from_a_setting_is_a_coupled_decay_knob():
    src = """
        import torch

        def make(model, args, cfg):
            a = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)  # expect: adam-coupled-weight-decay
            wd = cfg["optim"]["weight_decay"]
            b = torch.optim.RAdam(model.parameters(), weight_decay=wd)  # expect: adam-coupled-weight-decay
            return a, b
        """
    check(src, WD)
    found = messages(src, "adam-coupled-weight-decay")
    assert {f.severity for f in found} == {"info"}
    assert all("whenever it is non-zero" in f.message for f in found)


MP = {"optimizer-misses-parameters"}


def test_optimizer_over_one_submodule():
    src = """
        import torch
        import torch.nn as nn

        class Seq2Seq(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.GRU(16, 32)
                self.decoder = nn.GRU(32, 32)
                self.head = nn.Linear(32, 10)

        model = Seq2Seq().to("cpu")
        optimizer = torch.optim.Adam(model.encoder.parameters(), lr=1e-3)  # expect: optimizer-misses-parameters
        """
    check(src, MP)
    (f,) = messages(src, "optimizer-misses-parameters")
    assert "model.decoder" in f.message and "model.head" in f.message


def test_param_groups_frozen_parts_and_opaque_lists_are_fine():
    check(
        """
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.backbone = nn.Linear(8, 8)
                self.head = nn.Linear(8, 2)

        def a():
            model = Net()
            return torch.optim.SGD([
                {"params": model.backbone.parameters(), "lr": 1e-4},
                {"params": model.head.parameters()},
            ], lr=1e-2)
        """,
        MP,
    )
    check(
        """
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.backbone = nn.Linear(8, 8)
                self.head = nn.Linear(8, 2)

        def b(params):
            model = Net()
            head = torch.optim.SGD(model.head.parameters(), lr=1e-2)
            return torch.optim.SGD(params, lr=1e-2), head
        """,
        MP,
    )
    check(
        """
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.backbone = nn.Linear(8, 8)
                self.head = nn.Linear(8, 2)

        model = Net()
        model.backbone.requires_grad_(False)
        optimizer = torch.optim.Adam(model.head.parameters())
        """,
        MP,
    )


UF = {"unfrozen-after-optimizer-built"}


def test_gradual_unfreezing_after_filtered_optimizer():
    check(
        """
        import torch

        def finetune(model, loader, train_epoch, epochs):
            for p in model.backbone.parameters():
                p.requires_grad = False
            opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-4)
            for epoch in range(epochs):
                if epoch == 5:
                    model.backbone.requires_grad_(True)  # expect: unfrozen-after-optimizer-built
                train_epoch(model, loader, opt)
        """,
        UF,
    )


def test_unfreeze_with_rebuilt_optimizer_or_unfiltered_params_is_fine():
    check(
        """
        import torch

        def a(model):
            model.backbone.requires_grad_(False)
            opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
            model.backbone.requires_grad_(True)
            return opt

        def b(model):
            model.backbone.requires_grad_(False)
            opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad])
            model.backbone.requires_grad_(True)
            opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad])
            return opt
        """,
        UF,
    )


REBUILT = {"optimizer-rebuilt-in-loop"}


def test_stateful_optimizer_built_in_the_batch_loop_is_an_error():
    src = """
        import torch
        from torch.optim import AdamW as W

        def train(model, loader, lr):
            for x, y in loader:
                opt = torch.optim.Adam(model.parameters(), lr=lr)  # expect: optimizer-rebuilt-in-loop
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()

        def train_momentum(net, batches):
            step = 0
            while step < 1000:
                x, y = batches[step % len(batches)]
                sgd = torch.optim.SGD(net.parameters(), 0.1, 0.9)  # expect: optimizer-rebuilt-in-loop
                sgd.zero_grad()
                ((net(x) - y) ** 2).mean().backward()
                sgd.step()
                step += 1

        def train_aliased(model, loader):
            for batch in loader:
                optimizer = W(model.parameters(), lr=3e-4, weight_decay=0.01)  # expect: optimizer-rebuilt-in-loop
                loss = model(**batch).loss
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
        """
    check(src, REBUILT)
    assert {f.severity for f in messages(src, "optimizer-rebuilt-in-loop")} == {"error"}


def test_optimizers_built_once_per_trial_fold_or_stage_are_fine():
    check(
        """
        import torch
        from torch import nn

        def tune(loader, lrs):
            for lr in lrs:  # one optimizer per trial, many steps each
                model = nn.Linear(4, 2)
                opt = torch.optim.Adam(model.parameters(), lr=lr)
                for x, y in loader:
                    opt.zero_grad()
                    nn.functional.cross_entropy(model(x), y).backward()
                    opt.step()

        def lr_probe(make_model, batch, lrs):
            for lr in lrs:  # a fresh model per probe: one step each is the point
                model = make_model()
                opt = torch.optim.Adam(model.parameters(), lr=lr)
                opt.zero_grad()
                nn.functional.mse_loss(model(batch[0]), batch[1]).backward()
                opt.step()

        def ensembles(models, loader):
            for m in models:
                opt = torch.optim.AdamW(m.parameters())
                for x, y in loader:
                    opt.zero_grad()
                    nn.functional.mse_loss(m(x), y).backward()
                    opt.step()

        def plain_sgd(model, loader):
            for x, y in loader:  # SGD without momentum keeps no state: rebuilding only costs time
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                opt.zero_grad()
                nn.functional.mse_loss(model(x), y).backward()
                opt.step()

        def once(model, loader, epochs):
            opt = torch.optim.Adam(model.parameters())
            for _ in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    nn.functional.mse_loss(model(x), y).backward()
                    opt.step()

        def stages(model, loader):
            for stage, params in enumerate([model.head.parameters(), model.parameters()]):
                opt = torch.optim.AdamW(params, lr=1e-3 / (stage + 1))
                for x, y in loader:
                    opt.zero_grad()
                    nn.functional.mse_loss(model(x), y).backward()
                    opt.step()
        """,
        REBUILT,
    )


def test_lightning_manual_optimization_fetches_the_same_optimizer():
    check(
        """
        import torch
        import lightning as L

        class Module(L.LightningModule):
            def training_step(self, batch, batch_idx):
                opt = self.optimizers()
                opt.zero_grad()
                loss = self.compute_loss(batch)
                self.manual_backward(loss)
                opt.step()

            def configure_optimizers(self):
                return torch.optim.Adam(self.parameters(), lr=1e-3)
        """,
        REBUILT,
    )


def test_backbone_only_run_without_gradients_is_a_deliberate_probe():
    check(
        """
        import torch
        import torch.nn as nn

        class Probe(nn.Module):
            def __init__(self):
                super().__init__()
                self.backbone = nn.Sequential(nn.Conv2d(3, 512, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
                self.head = nn.Linear(512, 10)

            def forward(self, x):
                self.backbone.eval()
                with torch.no_grad():
                    feats = self.backbone(x)
                return self.head(feats)

        class Distilled(nn.Module):
            def __init__(self):
                super().__init__()
                self.teacher = nn.Linear(32, 32)
                self.student = nn.Linear(32, 32)
                self.proj = nn.Linear(32, 10)

            def forward(self, x):
                target = self.teacher(x).detach()
                mid = self.student.forward(x)
                return self.proj(mid), target

        class Encoded(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Linear(32, 16)
                self.head = nn.Linear(16, 2)

            @torch.no_grad()
            def embed(self, x):
                return self.encoder(x)

            def forward(self, x):
                z = self.encoder.forward(x)
                z = z.detach()
                return self.head(z)

        class Helper(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Linear(32, 16)
                self.head = nn.Linear(16, 2)

            def extract(self, x):
                return self.encoder(x).flatten(1)

            def forward(self, x):
                with torch.no_grad():
                    z = self.extract(x)
                return self.head(z)

        model = Probe()
        opt = torch.optim.SGD(model.head.parameters(), lr=0.1)
        helper = Helper()
        opt4 = torch.optim.SGD(helper.head.parameters(), lr=0.1)
        distilled = Distilled()
        opt2 = torch.optim.Adam([{"params": distilled.student.parameters()}, {"params": distilled.proj.parameters()}])
        enc = Encoded()
        opt3 = torch.optim.Adam(enc.head.parameters())
        """,
        MP,
    )


def test_backbone_whose_output_reaches_the_loss_with_gradients_is_reported():
    src = """
        import torch
        import torch.nn as nn

        class Probe(nn.Module):
            def __init__(self):
                super().__init__()
                self.backbone = nn.Sequential(nn.Linear(32, 32), nn.ReLU())
                self.head = nn.Linear(32, 10)

            @torch.no_grad()
            def features(self, x):
                return self.backbone(x)

            def forward(self, x):
                feats = self.backbone(x)
                print(feats.detach().norm())
                return self.head(feats)

        class Partly(nn.Module):
            def __init__(self):
                super().__init__()
                self.backbone = nn.Linear(32, 32)
                self.head = nn.Linear(32, 10)

            def forward(self, x):
                with torch.no_grad():
                    feats = self.backbone(x)
                return self.head(feats)

        class Helper(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Linear(32, 16)
                self.head = nn.Linear(16, 2)

            def extract(self, x):
                return self.encoder(x)

            def forward(self, x):
                with torch.no_grad():
                    warm = self.extract(x)
                return self.head(self.extract(x) + warm)

        model = Probe()
        opt = torch.optim.SGD(model.head.parameters(), lr=0.1)  # expect: optimizer-misses-parameters
        helper = Helper()
        opt4 = torch.optim.SGD(helper.head.parameters(), lr=0.1)  # expect: optimizer-misses-parameters
        partly = Partly()
        x, y = torch.randn(4, 32), torch.randint(0, 10, (4,))
        feats = partly.backbone(x)  # the training script runs the backbone itself, with gradients
        loss = nn.functional.cross_entropy(partly.head(feats), y)
        opt2 = torch.optim.SGD(partly.head.parameters(), lr=0.1)  # expect: optimizer-misses-parameters
        """
    check(src, MP)
    texts = [f.message for f in messages(src, "optimizer-misses-parameters")]
    assert sum("backbone" in t for t in texts) == 2 and sum("helper.encoder" in t for t in texts) == 1
