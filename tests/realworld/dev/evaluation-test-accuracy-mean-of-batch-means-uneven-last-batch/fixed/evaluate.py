import numpy as np
import torch


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    batch_acc = []
    n_seen = 0
    for tokens, lengths, labels in loader:
        tokens, labels = tokens.to(device), labels.float().to(device)
        logits = model(tokens, lengths)
        preds = (logits > 0).float()
        batch_acc.append((preds == labels).float().sum().item())
        n_seen += labels.numel()
    return float(np.sum(batch_acc)) / n_seen
