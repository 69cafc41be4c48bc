import torch


@torch.no_grad()
def interval_report(model, loader, lo_idx: int, hi_idx: int, std: float):
    """Empirical coverage and mean width (original units) of the [lo, hi] interval."""
    model.eval()
    inside, total, width = 0, 0, 0.0
    for x, y in loader:
        pred = model(x)
        lo, hi = pred[..., lo_idx], pred[..., hi_idx]
        inside += ((y >= lo) & (y <= hi)).sum().item()
        total += y.numel()
        width += ((hi - lo) * std).sum().item()
    model.train()
    return inside / total, width / total
