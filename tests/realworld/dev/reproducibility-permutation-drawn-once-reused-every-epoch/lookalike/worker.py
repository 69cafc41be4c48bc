import torch
import torch.nn.functional as F


@torch.no_grad()
def evaluate(model, tokens, batch_size=32):
    model.eval()
    order = torch.arange(len(tokens))
    total, n = 0.0, 0
    for start in range(0, len(order), batch_size):
        batch = tokens[order[start:start + batch_size]]
        logits = model(batch[:, :-1])
        total += F.cross_entropy(logits.flatten(0, 1), batch[:, 1:].flatten(), reduction="sum").item()
        n += batch[:, 1:].numel()
    return total / n
