import numpy as np
import torch


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    padded_lens = []
    n_correct, n_total = 0, 0
    for tokens, lengths, labels in loader:
        logits = model(tokens.to(device), lengths)
        preds = (logits > 0).float().cpu()
        n_correct += (preds == labels.float()).sum().item()
        n_total += labels.numel()
        padded_lens.append(float(tokens.shape[1]))
    print(f"mean padded length per batch: {np.mean(padded_lens):.1f}")
    return n_correct / n_total
