"""The ``adam-coupled-weight-decay`` rule (``mlsleuth/scan/rules/hyperparameter/adam_coupled_weight_decay.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

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


def test_transformer_finetuning_with_coupled_decay_is_a_warning():
    # a Lightning module over a Hugging Face model, the decay read from hparams (default 0.01)
    src = """
        import torch
        import lightning as L
        from transformers import AutoModelForSequenceClassification

        class TextClassifier(L.LightningModule):
            def __init__(self, backbone="bert-base-uncased", lr=2e-5, weight_decay=0.01):
                super().__init__()
                self.save_hyperparameters()
                self.model = AutoModelForSequenceClassification.from_pretrained(backbone)

            def configure_optimizers(self):
                hp = self.hparams
                return torch.optim.Adam(self.parameters(), lr=hp.lr, weight_decay=hp.weight_decay)  # expect: adam-coupled-weight-decay
        """
    check(src, WD)
    assert {f.severity for f in messages(src, "adam-coupled-weight-decay")} == {"warning"}
    # a ViT from timm, the decay a literal; an nn.TransformerEncoder in a plain script
    for build in ("timm.create_model('vit_base_patch16_224')", "nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4), 2)"):
        src = f"""
            import timm
            import torch
            import torch.nn as nn

            model = {build}
            opt = torch.optim.Adam(model.parameters(), lr=1e-4, weight_decay=0.05)  # expect: adam-coupled-weight-decay
            """
        check(src, WD)
        assert {f.severity for f in messages(src, "adam-coupled-weight-decay")} == {"warning"}


def test_transformer_with_decay_setting_off_by_default_or_adamw_is_quiet():
    check(
        """
        import torch
        import lightning as L
        from transformers import AutoModel

        class Encoder(L.LightningModule):
            def __init__(self, lr=2e-5, weight_decay=0.0):
                super().__init__()
                self.save_hyperparameters()
                self.model = AutoModel.from_pretrained("bert-base-uncased")

            def configure_optimizers(self):
                a = torch.optim.Adam(self.parameters(), lr=self.hparams.lr, weight_decay=self.hparams.weight_decay)
                b = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=0.01)
                return a
        """,
        WD,
    )
    # a small CNN regressor with Adam + L2: still the info-level note, not a warning
    src = """
        import torch

        def train(model, weight_decay=1e-2):
            return torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=weight_decay)  # expect: adam-coupled-weight-decay
        """
    check(src, WD)
    assert {f.severity for f in messages(src, "adam-coupled-weight-decay")} == {"info"}
