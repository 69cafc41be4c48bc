import torch


def f1_per_frame(y_hat, y_true, threshold=0.5, eps=1e-7):
    """Frame-level F1 for multi-label sound event detection.

    y_hat, y_true: (batch, frames, classes)
    """
    y_pred = (y_hat >= threshold).float()
    tp = (y_pred * y_true).sum()
    fp = (y_pred * (1 - y_true)).sum()
    fn = ((1 - y_pred) * y_true).sum()
    return (2 * tp / (2 * tp + fp + fn + eps)).item()


def error_rate_per_frame(y_hat, y_true, threshold=0.5):
    y_pred = (y_hat >= threshold).float()
    fn = ((1 - y_pred) * y_true).sum(-1)
    fp = (y_pred * (1 - y_true)).sum(-1)
    subs = torch.minimum(fn, fp)
    n_ref = y_true.sum().clamp_min(1.0)
    return ((subs + (fn - subs) + (fp - subs)).sum() / n_ref).item()
