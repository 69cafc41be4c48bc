"""The ``optimizer-misses-parameters`` rule (``mlsleuth/scan/rules/training_loop/optimizer_misses_parameters.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

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


def test_lightning_configure_optimizers_over_one_submodule():
    src = """
        import torch
        import torch.nn.functional as F
        from torch import nn
        import lightning as L

        class Classifier(L.LightningModule):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Sequential(nn.Linear(16, 64), nn.ReLU())
                self.head = nn.Linear(64, 4)

            def forward(self, x):
                return self.head(self.encoder(x))

            def training_step(self, batch, batch_idx):
                x, y = batch
                return F.cross_entropy(self(x), y)

            def configure_optimizers(self):
                return torch.optim.Adam(self.encoder.parameters(), lr=3e-3)  # expect: optimizer-misses-parameters
        """
    check(src, MP)
    (f,) = messages(src, "optimizer-misses-parameters")
    assert "self.head" in f.message


def test_lightning_gan_two_optimizers_and_frozen_backbone_are_fine():
    check(
        """
        import torch
        from torch import nn
        import pytorch_lightning as pl

        class GAN(pl.LightningModule):
            def __init__(self):
                super().__init__()
                self.generator = nn.Linear(8, 16)
                self.discriminator = nn.Linear(16, 1)
                self.automatic_optimization = False

            def training_step(self, batch, batch_idx):
                g_opt, d_opt = self.optimizers()
                fake = self.generator(batch)
                d_loss = self.discriminator(fake.detach()).mean()
                g_loss = -self.discriminator(fake).mean()

            def configure_optimizers(self):
                g = torch.optim.Adam(self.generator.parameters(), lr=2e-4)
                d = torch.optim.Adam(self.discriminator.parameters(), lr=2e-4)
                return [g, d]

        class Probe(pl.LightningModule):
            def __init__(self):
                super().__init__()
                self.backbone = nn.Linear(8, 8)
                self.head = nn.Linear(8, 2)

            def forward(self, x):
                with torch.no_grad():
                    h = self.backbone(x)
                return self.head(h)

            def configure_optimizers(self):
                return torch.optim.SGD(self.head.parameters(), lr=0.1)
        """,
        MP,
    )


def test_a_model_method_returning_parameter_groups_that_leave_out_a_submodule_flags():
    src = """
    import torch.nn as nn
    from transformers import BertModel

    class Fusion(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            bert = BertModel.from_pretrained(cfg.name)
            self.embeddings = bert.embeddings
            self.encoder = bert.encoder
            self.pooler = bert.pooler
            self.head = nn.Linear(768, cfg.num_labels)

        def forward(self, ids):
            hidden = self.encoder(self.embeddings(input_ids=ids)).last_hidden_state
            return self.head(self.pooler(hidden))

        def param_groups(self, lr):
            return [  # expect: optimizer-misses-parameters
                {"params": self.embeddings.parameters(), "lr": lr * 0.1},
                {"params": self.encoder.parameters(), "lr": lr * 0.1},
                {"params": self.head.parameters(), "lr": lr},
            ]
    """
    check(src, {"optimizer-misses-parameters"})


def test_parameter_group_builders_that_cover_everything_or_split_by_name_are_fine():
    src = """
    import torch
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
            self.neck = nn.Linear(16, 16)
            self.head = nn.Linear(16, 2)
            self.teacher = nn.Linear(8, 2)

        def forward(self, x):
            with torch.no_grad():
                soft = self.teacher(x)
            return self.head(self.neck(self.backbone(x))), soft

        def groups_all(self, lr):
            return [
                {"params": self.backbone.parameters(), "lr": lr * 0.1},
                {"params": list(self.neck.parameters()) + list(self.head.parameters()), "lr": lr},
            ]

        def groups_by_name(self, lr):
            decay = [p for n, p in self.named_parameters() if not n.endswith("bias")]
            no_decay = [p for n, p in self.named_parameters() if n.endswith("bias")]
            return [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}]

        def groups_with_neck(self, lr):
            return [
                {"params": self.backbone.parameters(), "lr": lr * 0.1},
                {"params": self.neck.parameters()},
                {"params": self.head.parameters()},
            ]
    """
    check(src, {"optimizer-misses-parameters"})


def test_a_group_builder_whose_missing_part_is_frozen_by_the_training_script_is_fine(tmp_path):
    from scan.helpers import check_project

    model = """
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Linear(8, 16)
            self.head = nn.Linear(16, 2)

        def forward(self, x):
            return self.head(self.stem(x))

        def groups(self, lr):
            return [{"params": self.head.parameters(), "lr": lr}]
    """
    train = """
    import torch
    from model import Net

    net = Net()
    for p in net.stem.parameters():
        p.requires_grad = False
    opt = torch.optim.SGD(net.groups(0.1), lr=0.1)
    """
    check_project(tmp_path, {"model.py": model, "train.py": train}, {"optimizer-misses-parameters"})
