"""The ``loss-arguments-swapped`` rule (``mlsleuth/scan/rules/loss/loss_arguments_swapped.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = {"loss-arguments-swapped"}


def test_functional_losses_with_the_target_first_tabular_and_distillation():
    src = """
    import torch
    import torch.nn.functional as F

    def step(model, x, y, target_logp, pred_logp):
        logits = model(x).squeeze(-1)
        bce = F.binary_cross_entropy_with_logits(y.float(), logits)  # expect: loss-arguments-swapped
        kd = F.kl_div(target_logp, pred_logp, log_target=True, reduction="batchmean")  # expect: loss-arguments-swapped
        return bce + kd
    """
    check(src, RULE)
    first = findings(src, "loss-arguments-swapped")[0]
    assert "`y.float()`" in first.message and "`logits`" in first.message


def test_criterion_on_self_in_a_lightning_module_nlp():
    src = """
    import lightning as L
    from torch import nn

    class Tagger(L.LightningModule):
        def __init__(self, encoder):
            super().__init__()
            self.encoder = encoder
            self.head = nn.Linear(768, 9)
            self.criterion = nn.CrossEntropyLoss()

        def training_step(self, batch, batch_idx):
            logits = self.head(self.encoder(batch["input_ids"]))
            return self.criterion(batch["labels"], logits)  # expect: loss-arguments-swapped
    """
    check(src, RULE)


def test_criterion_passed_as_a_parameter_and_from_a_config_dict():
    src = """
    import torch
    from torch import nn

    CONFIG = {"criterion": nn.BCEWithLogitsLoss(), "lr": 1e-3}

    def train_step(model, batch, criterion):
        outputs = model(batch[0])
        targets = batch[1]
        return criterion(targets, outputs)  # expect: loss-arguments-swapped

    def main(model, loader):
        for batch in loader:
            train_step(model, batch, nn.BCELoss())
        crit = CONFIG["criterion"]
        for x, labels in loader:
            scores = model(x)
            crit(labels, scores).backward()  # expect: loss-arguments-swapped
    """
    check(src, RULE)


def test_vision_vae_reconstruction_and_detection_focal_loss():
    src = """
    import torch.nn.functional as F
    from torchvision.ops import sigmoid_focal_loss

    def vae_loss(decoder, z, images):
        recon = decoder(z)
        return F.binary_cross_entropy(images, recon, reduction="sum")

    def vae_loss_targets(decoder, z, targets):
        recon = decoder(z)
        return F.binary_cross_entropy(targets, recon, reduction="sum")  # expect: loss-arguments-swapped

    def cls_loss(cls_logits, gt_classes_target):
        return sigmoid_focal_loss(gt_classes_target, cls_logits, reduction="sum")  # expect: loss-arguments-swapped
    """
    check(src, RULE)


def test_audio_ctc_with_the_label_sequences_first():
    src = """
    import torch.nn.functional as F

    def asr_loss(model, feats, targets, input_lengths, target_lengths):
        log_probs = model(feats).log_softmax(-1).transpose(0, 1)
        return F.ctc_loss(targets, log_probs, input_lengths, target_lengths)  # expect: loss-arguments-swapped
    """
    check(src, RULE)


def test_right_order_keywords_and_symmetric_losses_are_fine():
    src = """
    import torch.nn.functional as F
    from torch import nn

    def step(model, x, y, labels, target):
        logits = model(x)
        a = F.cross_entropy(logits, labels)
        b = F.cross_entropy(input=logits, target=labels)
        c = F.mse_loss(target, logits)
        d = F.l1_loss(labels, logits)
        e = F.smooth_l1_loss(target, logits)
        f = nn.HuberLoss()(target, logits)
        return a + b + c + d + e + f
    """
    check(src, RULE)


def test_a_name_that_the_value_contradicts_is_fine():
    src = """
    import torch.nn.functional as F

    def step(model, x, labels):
        y = model(x)
        return F.binary_cross_entropy_with_logits(y, labels.float())
    """
    check(src, RULE)


def test_deliberate_reversals_are_fine():
    src = """
    import torch.nn.functional as F

    def reverse_kl(target_logp, pred_logp):
        return F.kl_div(target_logp, pred_logp, log_target=True, reduction="batchmean")

    def symmetric(target_logp, pred_logp):
        fwd = F.kl_div(pred_logp, target_logp, log_target=True, reduction="batchmean")
        bwd = F.kl_div(target_logp, pred_logp, log_target=True, reduction="batchmean")
        return fwd + bwd

    def mode_seeking(target_logp, pred_logp):
        # KL(pred || target), the reverse direction on purpose
        return F.kl_div(target_logp, pred_logp, log_target=True, reduction="batchmean")
    """
    check(src, RULE)


def test_project_losses_and_undecided_names_are_fine():
    src = """
    import torch.nn.functional as F

    def cross_entropy(labels, logits):
        return -(labels * logits.log_softmax(-1)).sum(-1).mean()

    def step(model, x, labels, a, b):
        logits = model(x)
        first = cross_entropy(labels, logits)
        second = F.binary_cross_entropy(a, b)
        return first + second
    """
    check(src, RULE)


# -- a criterion held on another object; ranking and triplet roles ---------------------------------


def test_criterion_held_as_an_attribute_of_a_project_instance():
    check(
        """
        import torch.nn as nn

        class Classifier(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.head = nn.Linear(d, 1)
                self.crit = nn.BCEWithLogitsLoss()

            def forward(self, x):
                return self.head(x).squeeze(-1)

        def train(loader, optimizer):
            model = Classifier(16)
            for x, labels in loader:
                logits = model(x)
                loss = model.crit(labels, logits)  # expect: loss-arguments-swapped
                loss.backward()
                optimizer.step()
        """,
        RULE,
    )


def test_triplet_loss_with_positive_and_negative_crossed_face_embeddings():
    src = """
    import torch.nn as nn
    import torch.nn.functional as F

    class FaceNet(nn.Module):
        def __init__(self, backbone):
            super().__init__()
            self.backbone = backbone
            self.triplet = nn.TripletMarginLoss(margin=0.2)

        def training_step(self, batch, batch_idx):
            anchor, pos, neg = (self.backbone(t) for t in batch)
            a = self.triplet(anchor, neg, pos)  # expect: loss-arguments-swapped
            b = F.triplet_margin_loss(anchor, positive=neg, negative=pos)  # expect: loss-arguments-swapped
            return a + b
    """
    check(src, RULE)
    assert "pulls the anchor toward its negatives" in findings(src, "loss-arguments-swapped")[0].message


def test_margin_ranking_with_negatives_first_and_an_all_ones_target_recsys():
    check(
        """
        import torch
        import torch.nn.functional as F

        def bpr_step(model, users, pos_items, neg_items, optimizer):
            pos_scores = (model.user(users) * model.item(pos_items)).sum(-1)
            neg_scores = (model.user(users) * model.item(neg_items)).sum(-1)
            ones = torch.ones_like(pos_scores)
            loss = F.margin_ranking_loss(neg_scores, pos_scores, ones, margin=1.0)  # expect: loss-arguments-swapped
            loss.backward()
            optimizer.step()
        """,
        RULE,
    )


def test_cosine_embedding_loss_with_the_labels_in_a_score_slot():
    check(
        """
        import torch.nn as nn

        def pair_step(encoder, left, right, labels):
            crit = nn.CosineEmbeddingLoss()
            preds = encoder(right)
            return crit(labels, encoder(left), preds)  # expect: loss-arguments-swapped
        """,
        RULE,
    )


def test_ranking_and_triplet_look_alikes_in_order_stay_silent():
    check(
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class Ranker(nn.Module):
            def __init__(self):
                super().__init__()
                self.crit = nn.MSELoss()
                self.rank = nn.MarginRankingLoss(0.5)

            def forward(self, anchor, pos, neg, pos_s, neg_s, y):
                a = F.triplet_margin_loss(anchor, pos, neg)
                b = self.rank(pos_s, neg_s, torch.ones_like(pos_s))
                c = self.rank(neg_s, pos_s, -torch.ones_like(pos_s))
                d = F.margin_ranking_loss(neg_s, pos_s, y)
                e = F.cosine_embedding_loss(anchor, pos, y)
                return a + b + c + d + e

        def train(loader):
            model = Ranker()
            for x, labels in loader:
                out = model(x)
                loss = model.crit(labels, out)
                loss.backward()
        """,
        RULE,
    )


def test_held_criterion_on_an_unknown_or_mixed_object_stays_silent():
    check(
        """
        import torch.nn as nn

        class Wrapper:
            def __init__(self, kind):
                if kind == "bce":
                    self.crit = nn.BCEWithLogitsLoss()
                else:
                    self.crit = nn.MSELoss()

        def step(trainer, w_kind, x, labels, net):
            w = Wrapper(w_kind)
            logits = net(x)
            a = trainer.crit(labels, logits)
            b = w.crit(labels, logits)
            return a + b
        """,
        RULE,
    )
