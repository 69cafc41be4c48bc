from dataclasses import dataclass

import torch
import torch.nn.functional as F


@dataclass
class RunConfig:
    seed: int = 0
    num_epochs: int = 4
    batch_size: int = 16
    lr: float = 5e-5


def iterate_batches(order, batch_size):
    for start in range(0, len(order), batch_size):
        yield order[start:start + batch_size]


def worker(model, tokens, run_cfg: RunConfig):
    optimizer = torch.optim.AdamW(model.parameters(), lr=run_cfg.lr)
    g = torch.Generator().manual_seed(run_cfg.seed)
    order = torch.randperm(len(tokens), generator=g)
    for epoch in range(run_cfg.num_epochs):
        model.train()
        for idx in iterate_batches(order, run_cfg.batch_size):
            batch = tokens[idx]
            logits = model(batch[:, :-1])
            loss = F.cross_entropy(logits.flatten(0, 1), batch[:, 1:].flatten())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
    return model
