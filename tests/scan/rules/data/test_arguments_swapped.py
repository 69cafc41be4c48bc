"""The ``arguments-swapped`` rule (``mlsleuth/scan/rules/data/arguments_swapped.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, findings

RULE = {"arguments-swapped"}


def test_loaders_crossed_in_a_training_helper_vision():
    src = """
    import torch
    from torch.utils.data import DataLoader

    def fit(model, train_loader, val_loader, epochs=10):
        for _ in range(epochs):
            for x, y in train_loader:
                model(x)
        return model

    def main(model, train_ds, val_ds):
        train_loader = DataLoader(train_ds, batch_size=32, shuffle=True)
        val_loader = DataLoader(val_ds, batch_size=64)
        fit(model, val_loader, train_loader, epochs=3)  # expect: arguments-swapped
    """
    check(src, RULE)
    (found,) = findings(src, "arguments-swapped")
    assert "`train_loader`" in found.message and "`val_loader`" in found.message and "`fit`" in found.message


def test_tabular_dataset_built_with_labels_as_features():
    src = """
    import torch
    from torch.utils.data import Dataset

    class TabularDataset(Dataset):
        def __init__(self, X, y):
            self.X = torch.as_tensor(X, dtype=torch.float32)
            self.y = torch.as_tensor(y)

        def __len__(self):
            return len(self.y)

        def __getitem__(self, i):
            return self.X[i], self.y[i]

    def build(X_train, y_train):
        X, y = X_train, y_train
        return TabularDataset(y, X)  # expect: arguments-swapped
    """
    check(src, RULE)


def test_nlp_metrics_helper_and_lightning_method_through_self():
    src = """
    import numpy as np
    import lightning as L

    def compute_metrics(labels, preds):
        return {"precision": float(((preds == 1) & (labels == 1)).sum() / max((preds == 1).sum(), 1))}

    class Classifier(L.LightningModule):
        def shared_step(self, batch, stage):
            logits = self(batch["input_ids"])
            loss = self.loss_fn(logits, batch["labels"])
            return loss

        def loss_fn(self, logits, labels):
            return ((logits - labels) ** 2).mean()

        def validation_step(self, batch, batch_idx):
            preds = self(batch["input_ids"]).argmax(-1)
            labels = batch["labels"]
            self.log_dict(compute_metrics(preds, labels))  # expect: arguments-swapped

        def test_step(self, batch, batch_idx):
            logits = self(batch["input_ids"])
            return self.loss_fn(batch["labels"], logits)  # expect: arguments-swapped
    """
    check(src, RULE)


def test_prediction_and_reference_roles_crossed_in_an_audio_loss_module():
    src = """
    import torch
    from torch import nn

    class SpectralLoss(nn.Module):
        def forward(self, pred_audio, target_audio):
            return (torch.stft(pred_audio, 512, return_complex=True).abs()
                    - torch.stft(target_audio, 512, return_complex=True).abs()).abs().mean()

    class Synth(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(1, 512)

        def forward(self, f0):
            return self.proj(f0).flatten(1)

    class Trainer:
        def __init__(self):
            self.model = Synth()
            self.criterion = SpectralLoss()

        def step(self, batch):
            audio_gen = self.model(batch["f0"])
            return self.criterion(batch["target"], audio_gen)  # expect: arguments-swapped
    """
    check(src, RULE)


def test_rl_helper_with_keyword_and_positional_mixture():
    src = """
    import torch

    def td_error(q_values, target_q, gamma=0.99):
        return (q_values - target_q.detach()).pow(2).mean()

    def update(online, target_net, obs, next_obs, reward):
        q_values = online(obs)
        target_q = reward + 0.99 * target_net(next_obs).max(1).values
        return td_error(target_q, target_q=q_values)  # expect: arguments-swapped
    """
    check(src, RULE)


def test_split_helper_through_another_module(tmp_path):
    check_project(
        tmp_path,
        {
            "data/splits.py": """
            from sklearn.model_selection import train_test_split

            def make_split(frame, test_size, seed):
                return train_test_split(frame, test_size=test_size, random_state=seed)
            """,
            "train.py": """
            from data.splits import make_split

            def run(frame, seed=0, test_size=0.2):
                train, test = make_split(frame, seed, test_size)  # expect: arguments-swapped
                return train, test
            """,
        },
        RULE,
    )


def test_method_of_an_instance_from_another_module(tmp_path):
    check_project(
        tmp_path,
        {
            "engine.py": """
            class Engine:
                def __init__(self, model):
                    self.model = model

                def run(self, train_loader, eval_loader, epochs):
                    return self.model
            """,
            "main.py": """
            from engine import Engine

            def main(model, train_loader, eval_loader):
                engine = Engine(model)
                engine.run(eval_loader, train_loader, 5)  # expect: arguments-swapped
            """,
        },
        RULE,
    )


def test_calls_in_order_or_named_are_fine():
    src = """
    def fit(model, train_loader, val_loader):
        return model

    def compute_metrics(labels, preds):
        return labels, preds

    def main(model, train_loader, val_loader, preds, labels):
        fit(model, train_loader, val_loader)
        fit(model, train_loader=train_loader, val_loader=val_loader)
        compute_metrics(labels=labels, preds=preds)
        compute_metrics(labels, preds)
    """
    check(src, RULE)


def test_names_that_decide_nothing_and_one_sided_matches_are_fine():
    src = """
    def combine(a, b):
        return a - b

    def point(x, y):
        return (x, y)

    def loss_fn(pred, target):
        return ((pred - target) ** 2).mean()

    def main(a, b, x, y, tmp, val_loader, target, out):
        combine(b, a)
        point(y, x)
        loss_fn(target, tmp)
        loss_fn(target, x)
        loss_fn(val_loader, target)
    """
    check(src, RULE)


def test_mirror_pairs_and_numbered_pairs_crossed_on_purpose_are_fine():
    src = """
    def translate(model, src, tgt):
        return model(src, tgt)

    def resize(img, height, width):
        return img

    def contrastive(z1, z2):
        return (z1 * z2).sum()

    def back_translate(model, src, tgt, img, width, height, z1, z2):
        translate(model, tgt, src)
        resize(img, width, height)
        return contrastive(z2, z1)
    """
    check(src, RULE)


def test_reversing_wrappers_comments_and_symmetric_uses_are_fine():
    src = """
    def kl(pred, target):
        return (target * (target.log() - pred.log())).sum()

    def reverse_kl(pred, target):
        return kl(target, pred)

    def symmetric_kl(pred, target):
        return kl(pred, target) + kl(target, pred)

    def mode_seeking(pred, target):
        # KL(pred || target): arguments swapped on purpose
        return kl(target, pred)

    def mode_seeking_documented(pred, target):
        '''The reverse divergence: the two arguments trade places.'''
        return kl(target, pred)

    def pairwise_distance(pred, target):
        return (pred - target).norm()

    def use(pred, target):
        return pairwise_distance(target, pred)
    """
    check(src, RULE)


def test_star_args_decorated_and_unknown_callees_are_fine():
    src = """
    import functools
    import click
    from sklearn.metrics import mean_squared_error

    def log_all(*values):
        return values

    @click.command()
    def cli(train_path, val_path):
        return train_path, val_path

    def plain(train_loader, val_loader):
        return train_loader

    def main(train_loader, val_loader, labels, preds, train_path, val_path, args):
        log_all(val_loader, train_loader)
        cli(val_path, train_path)
        mean_squared_error(preds, labels)
        plain(*args)
        handler = getattr(args, "fit")
        handler(val_loader, train_loader)
    """
    check(src, RULE)


def test_keyword_only_crossing_is_deliberate():
    src = """
    def fit(model, train_loader, val_loader):
        return model

    def main(model, train_loader, val_loader):
        return fit(model, train_loader=val_loader, val_loader=train_loader)
    """
    check(src, RULE)


def test_values_that_come_back_crossed_the_same_way_and_symmetric_measures_are_fine():
    src = """
    import torch

    class Attention(torch.nn.Module):
        def _add_bias(self, k, v, key_padding_mask, attn_mask, bsz):
            return k, v, key_padding_mask, attn_mask

        def forward(self, k, v, attn_mask, key_padding_mask, bsz):
            k, v, attn_mask, key_padding_mask = self._add_bias(k, v, attn_mask, key_padding_mask, bsz)
            return k, v

    def compute_accuracy(pred, gold):
        return sum(p == g for p, g in zip(pred, gold)) / len(pred)

    def evaluate(ans_pred_list, ans_gold_list):
        return compute_accuracy(ans_gold_list, ans_pred_list)
    """
    check(src, RULE)


# -- prediction and reference crossed by keyword -------------------------------------------------


def test_keyword_call_naming_the_prediction_and_reference_crossed():
    src = """
    import torch

    def boundary_loss(pred, target, eps=1.0):
        inter = (pred.sigmoid() * target).sum()
        return 1 - (2 * inter + eps) / (pred.sigmoid().sum() + target.sum() + eps)

    def focal(logits, labels, gamma=2.0):
        p = torch.sigmoid(logits)
        return (-(1 - p) ** gamma * labels * torch.log(p)).mean()

    def step(model, images, gt_masks):
        preds = model(images)
        a = boundary_loss(pred=gt_masks, target=preds)  # expect: arguments-swapped
        b = focal(labels=preds, logits=gt_masks)  # expect: arguments-swapped
        return a + b
    """
    check(src, RULE)
    assert "names `gt_masks` as `pred`" in findings(src, "arguments-swapped")[0].message


def test_keyword_calls_with_matching_or_mirrored_names_stay_silent():
    check(
        """
        def align(src, tgt):
            return src - tgt

        def score(pred, target):
            return (pred - target).abs().mean()

        def run(model, x, labels, a, b):
            preds = model(x)
            s1 = score(pred=preds, target=labels)
            s2 = score(target=labels, pred=preds)
            s3 = align(src=b, tgt=a)
            s4 = align(tgt=a, src=b)
            return s1 + s2 + s3 + s4
        """,
        RULE,
    )


def test_keyword_crossings_in_tabular_rl_and_nlp_helpers():
    check(
        """
        import torch

        def weighted_error(y_true, y_pred, w):
            return (w * (y_true - y_pred).abs()).sum() / w.sum()

        def td_error(q_pred, q_target):
            return torch.nn.functional.smooth_l1_loss(q_pred, q_target)

        def token_nll(logits, targets, pad_id):
            return torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, ignore_index=pad_id)

        def evaluate(model, X_val, y_val, w):
            y_hat = model(X_val)
            return weighted_error(y_true=y_hat, y_pred=y_val, w=w)  # expect: arguments-swapped

        def dqn_step(online, target_net, obs, act, ret):
            pred_q = online(obs).gather(1, act)
            target_q = ret + 0.99 * target_net(obs).max(1).values
            return td_error(q_target=pred_q, q_pred=target_q)  # expect: arguments-swapped

        def lm_step(model, input_ids, labels):
            logits = model(input_ids)
            return token_nll(logits=labels, targets=logits, pad_id=0)  # expect: arguments-swapped
        """,
        RULE,
    )


def test_keyword_crossings_announced_or_used_both_ways_stay_silent():
    check(
        """
        def kl_term(pred, target):
            return (target * (target.log() - pred.log())).sum()

        def reverse_kl(preds, labels):
            return kl_term(pred=labels, target=preds)

        def both_ways(preds, labels):
            return kl_term(pred=labels, target=preds) + kl_term(pred=preds, target=labels)

        def explained(preds, labels):
            # the teacher's distribution is the reference here, swapped on purpose
            return kl_term(pred=labels, target=preds)
        """,
        RULE,
    )
