import torch
import torch.nn.functional as F


def ce_loss(logits, targets, use_hard_labels=True, reduction="none"):
    """Cross-entropy against integer labels, or against a probability vector."""
    if use_hard_labels:
        return F.cross_entropy(logits, targets.long(), reduction=reduction)
    log_pred = F.log_softmax(logits, dim=-1)
    loss = torch.sum(-targets * log_pred, dim=1)
    return loss if reduction == "none" else loss.mean()


def consistency_loss(logits_s, logits_w, T=1.0, p_cutoff=0.95, use_hard_labels=True):
    """Unlabeled loss: the weak view's prediction supervises the strong view.

    Hard labels: argmax pseudo-labels kept where the confidence passes p_cutoff.
    Soft labels: the weak view's distribution sharpened by temperature T, same mask.
    """
    logits_w = logits_w.detach()
    probs = torch.softmax(logits_w, dim=-1)
    max_probs, max_idx = probs.max(dim=-1)
    mask = max_probs.ge(p_cutoff).float()
    if use_hard_labels:
        loss = ce_loss(logits_s, max_idx, use_hard_labels=True) * mask
    else:
        sharpened = torch.softmax(logits_w / T, dim=-1)
        loss = ce_loss(logits_s, sharpened, use_hard_labels=False) * mask
    return loss.mean(), mask.mean()
