"""The ``accuracy-counts-padding`` rule (``mlsleuth/scan/rules/evaluation/accuracy_counts_padding.py``)."""

from __future__ import annotations

from scan.helpers import check, findings, project_reported, write_project

RULE = "accuracy-counts-padding"


def test_lightning_helper_returns_target_of_pad_ignoring_loss():
    src = """
    import lightning as L
    import torch
    import torch.nn.functional as F

    class LitVAE(L.LightningModule):
        def _losses(self, tokens):
            logits = self.model(tokens)
            target = tokens[:, 1:]
            recon = F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1), ignore_index=self.pad_idx)
            return logits, target, recon

        def validation_step(self, tokens, batch_idx):
            logits, target, recon = self._losses(tokens)
            preds = logits.argmax(dim=-1)
            token_acc = (preds == target).float().mean()  # expect: accuracy-counts-padding
            self.log("val/token_acc", token_acc)
    """
    (f,) = findings(src, RULE)
    check(src, {RULE})
    assert "_losses" in f.observation


def test_criterion_module_and_torch_mean_and_minus_100_labels():
    src = """
    import torch
    from torch import nn
    import torch.nn.functional as F

    PAD = 0
    criterion = nn.CrossEntropyLoss(ignore_index=PAD)

    def evaluate(model, loader):
        for src, tgt in loader:
            out = model(src)
            loss = criterion(out.view(-1, out.size(-1)), tgt.view(-1))
            acc = torch.mean((out.argmax(-1) == tgt).float())  # expect: accuracy-counts-padding
            print(loss.item(), acc.item())

    def lm_step(model, batch):
        logits = model(batch["input_ids"]).logits
        labels = batch["labels"]
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)
        accuracy = (logits.argmax(-1) == labels).float().mean().item()  # expect: accuracy-counts-padding
        return loss, accuracy
    """
    check(src, {RULE})


def test_match_count_over_numel():
    src = """
    import torch.nn.functional as F

    def seq2seq_eval(model, src, tgt, pad_id):
        logits = model(src, tgt[:, :-1])
        gold = tgt[:, 1:]
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), gold.reshape(-1), ignore_index=pad_id)
        acc = (logits.argmax(-1) == gold).sum().item() / gold.numel()  # expect: accuracy-counts-padding
        return loss, acc
    """
    check(src, {RULE})


def test_negative_masked_or_no_padding_in_the_loss():
    src = """
    import torch
    import torch.nn.functional as F

    def masked(logits, target, pad):
        loss = F.cross_entropy(logits.transpose(1, 2), target, ignore_index=pad)
        mask = target != pad
        acc = (logits.argmax(-1) == target)[mask].float().mean()
        return loss, acc

    def filtered(logits, target, pad):
        loss = F.cross_entropy(logits.transpose(1, 2), target, ignore_index=pad)
        keep = target != pad
        preds = logits.argmax(-1)[keep]
        target = target[keep]
        return loss, (preds == target).float().mean()

    def classification(model, x, y):
        out = model(x)
        loss = F.cross_entropy(out, y)
        return loss, (out.argmax(1) == y).float().mean()

    def counted(logits, target, pad):
        loss = F.cross_entropy(logits.transpose(1, 2), target, ignore_index=pad)
        mask = target.ne(pad)
        correct = ((logits.argmax(-1) == target) & mask).sum()
        return loss, correct.float() / mask.sum()

    def counted_over_real(logits, target, pad):
        loss = F.cross_entropy(logits.transpose(1, 2), target, ignore_index=pad)
        n_real = (target != pad).sum()
        return loss, (logits.argmax(-1) == target).sum() / n_real
    """
    check(src, {RULE})


def test_negative_custom_batch_sampler_in_the_project(tmp_path):
    write_project(tmp_path, {
        "lit.py": """
            import torch.nn.functional as F

            def val_step(model, tokens, pad):
                logits = model(tokens)
                loss = F.cross_entropy(logits.transpose(1, 2), tokens, ignore_index=pad)
                return loss, (logits.argmax(-1) == tokens).float().mean()
        """,
        "data.py": """
            from torch.utils.data import DataLoader

            def loaders(ds, sampler, collate):
                return DataLoader(ds, batch_sampler=sampler, collate_fn=collate)
        """,
    })
    assert not project_reported(tmp_path, {RULE})
