"""The ``freeze-sets-trainable`` rule (``mlsleuth/scan/rules/training_loop/freeze_sets_trainable.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

FT = {"freeze-sets-trainable"}


def test_feature_extraction_flag_sets_true_vision():
    check(
        """
        import torch
        import torchvision

        def set_parameter_requires_grad(model, feature_extracting):
            if feature_extracting:
                for param in model.parameters():
                    param.requires_grad = True  # expect: freeze-sets-trainable

        model = torchvision.models.resnet18(weights="DEFAULT")
        set_parameter_requires_grad(model, True)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        """,
        FT,
    )


def test_freeze_helper_named_for_freezing_nlp_and_requires_grad_call():
    check(
        """
        from transformers import AutoModel

        def freeze_embeddings(model):
            for p in model.embeddings.parameters():
                p.requires_grad = True  # expect: freeze-sets-trainable

        class Tagger:
            def freeze_encoder(self):
                self.encoder.requires_grad_(True)  # expect: freeze-sets-trainable

        bert = AutoModel.from_pretrained("bert-base-uncased")
        freeze_embeddings(bert)
        """,
        FT,
    )


def test_config_flag_guards_true_rl_and_audio():
    check(
        """
        import torch.nn as nn

        class Agent(nn.Module):
            def __init__(self, cfg, encoder):
                super().__init__()
                self.encoder = encoder
                self.pi = nn.Linear(64, 4)
                if cfg["freeze_encoder"]:
                    for p in self.encoder.parameters():
                        p.requires_grad = True  # expect: freeze-sets-trainable

        def build_asr(args, wav2vec):
            if args.freeze_feature_encoder is True:
                wav2vec.feature_extractor.requires_grad_()  # expect: freeze-sets-trainable
            return wav2vec
        """,
        FT,
    )


def test_freeze_flag_used_as_the_value():
    check(
        """
        import torch
        import torch.nn as nn

        def set_freeze_by_names(model, names, freeze=True):
            for name, child in model.named_children():
                if name in names:
                    for param in child.parameters():
                        param.requires_grad = freeze  # expect: freeze-sets-trainable

        class TabularNet(nn.Module):
            def __init__(self, n_features, frozen_embedding=False):
                super().__init__()
                self.emb = nn.Parameter(torch.randn(n_features, 8), requires_grad=frozen_embedding)  # expect: freeze-sets-trainable

        def prepare(model, cfg):
            model.backbone.requires_grad_(cfg.get("freeze_backbone"))  # expect: freeze-sets-trainable
            for p in model.head.parameters():
                p.requires_grad = not trainable_head(cfg)
        """,
        FT,
    )


def test_not_trainable_is_inverted():
    check(
        """
        def configure(model, trainable):
            for p in model.encoder.parameters():
                p.requires_grad = not trainable  # expect: freeze-sets-trainable
        """,
        FT,
    )


def test_correct_freezes_stay_silent():
    check(
        """
        import torch.nn as nn

        def set_parameter_requires_grad(model, feature_extracting):
            if feature_extracting:
                for param in model.parameters():
                    param.requires_grad = False

        def set_freeze_by_names(model, names, freeze=True):
            for name, child in model.named_children():
                if name in names:
                    for param in child.parameters():
                        param.requires_grad = not freeze

        class Net(nn.Module):
            def __init__(self, freeze_pos=False):
                super().__init__()
                self.pos = nn.Parameter(torch.zeros(16), requires_grad=not freeze_pos)

        def configure(model, trainable):
            model.encoder.requires_grad_(trainable)
        """,
        FT,
    )


def test_freeze_all_then_unfreeze_head_stays_silent():
    check(
        """
        def freeze_backbone(model, train_bn=True):
            for p in model.parameters():
                p.requires_grad = False
            for p in model.head.parameters():
                p.requires_grad = True
            if train_bn:
                for m in model.modules():
                    if isinstance(m, nn.BatchNorm2d):
                        m.weight.requires_grad = True

        def build(model, args):
            if args.freeze:
                model.requires_grad_(False)
                model.classifier.requires_grad_(True)
            else:
                model.requires_grad_(True)
        """,
        FT,
    )


def test_unfreezing_code_stays_silent():
    check(
        """
        class Finetuner:
            def unfreeze_backbone(self):
                if self.freeze_backbone:
                    for p in self.backbone.parameters():
                        p.requires_grad = True

            def step_epoch(self, epoch):
                if epoch >= self.freeze_epochs:
                    for p in self.backbone.parameters():
                        p.requires_grad = True
                if not self.cfg.freeze:
                    self.model.requires_grad_(True)

            def thaw(self):
                if self.frozen:
                    self.backbone.requires_grad_(True)
                    self.frozen = False

        def maybe_unfreeze(model, freeze):
            if freeze:
                model.backbone.requires_grad_(False)
            else:
                for p in model.backbone.parameters():
                    p.requires_grad = True
        """,
        FT,
    )


def test_count_and_list_flags_stay_silent():
    check(
        """
        def setup(model, args):
            if args.freeze_layers:
                for name, p in model.named_parameters():
                    p.requires_grad = True
            for p in model.parameters():
                p.requires_grad = args.freeze_until == 0
            if args.no_freeze:
                model.requires_grad_(True)

        def freeze_schedule(model, epoch, unfreeze_at):
            for p in model.encoder.parameters():
                p.requires_grad = True
            if epoch < unfreeze_at:
                for p in model.encoder.parameters():
                    p.requires_grad = False
        """,
        FT,
    )


def test_message_names_the_flag():
    [f] = findings(
        """
        def set_parameter_requires_grad(model, feature_extracting):
            if feature_extracting:
                for param in model.parameters():
                    param.requires_grad = True
        """,
        "freeze-sets-trainable",
    )
    assert "feature_extracting" in f.message and "True" in f.message


def test_freeze_flag_passed_to_a_requires_grad_helper(tmp_path):
    from scan.helpers import check_project

    check_project(
        tmp_path,
        {
            "utils.py": """
                def set_requires_grad(module, flag):
                    for p in module.parameters():
                        p.requires_grad = flag
            """,
            "train.py": """
                from utils import set_requires_grad

                def build(model, cfg):
                    set_requires_grad(model.encoder, cfg.freeze_encoder)  # expect: freeze-sets-trainable
                    set_requires_grad(model.head, not cfg.freeze_head)
                    set_requires_grad(model.decoder, cfg.train_decoder)
                    return model
            """,
        },
        FT,
    )


def test_callers_decide_an_inverted_parameter_flag():
    source = """
        import torch.nn as nn

        class WordEncoder(nn.Module):
            def freeze_embeddings(self, freeze=False):
                self.embeddings.weight.requires_grad = freeze  # expect: freeze-sets-trainable

        class SentenceEncoder(nn.Module):
            def set_frozen(self, freeze):
                self.embeddings.weight.requires_grad = freeze

        class Agent(nn.Module):
            def freeze(self, freeze):
                for p in self.parameters():
                    p.requires_grad = freeze  # expect: freeze-sets-trainable

        def un_freeze_model(model, freeze=True):
            for p in model.parameters():
                p.requires_grad = freeze

        def build(args):
            words = WordEncoder()
            words.freeze_embeddings(freeze=not args.fine_tune_embeddings)
            sents = SentenceEncoder()
            sents.set_frozen(args.fine_tune)
            return words, sents
        """
    check(source, FT)
    by_line = {f.location.line: f.severity for f in findings(source, "freeze-sets-trainable")}
    assert sorted(by_line.values()) == ["info", "warning"]
