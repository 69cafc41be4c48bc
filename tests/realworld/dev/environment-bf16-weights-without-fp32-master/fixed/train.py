from dataclasses import dataclass

import torch
import torch.nn.functional as F

from model import TinyLM


@dataclass
class Config:
    steps: int = 300
    batch_size: int = 64
    lr: float = 1e-4
    dtype: torch.dtype = torch.bfloat16
    seed: int = 0


def get_batch(rule, ctx, batch_size, g, vocab=64, noise=0.1):
    x = torch.randint(0, vocab, (batch_size, ctx), generator=g)
    y = rule[x[:, -1]]
    flip = torch.rand(batch_size, generator=g) < noise
    y[flip] = torch.randint(0, vocab, (int(flip.sum()),), generator=g)
    return x, y


def main(cfg=Config()):
    torch.manual_seed(cfg.seed)
    rule = torch.randperm(64, generator=torch.Generator().manual_seed(123))
    lm = TinyLM()
    opt = torch.optim.AdamW(lm.parameters(), lr=cfg.lr, weight_decay=0.0)
    g = torch.Generator().manual_seed(cfg.seed)
    for step in range(cfg.steps):
        x, y = get_batch(rule, lm.ctx, cfg.batch_size, g)
        with torch.autocast("cpu", dtype=cfg.dtype):
            logits = lm(x)
        loss = F.cross_entropy(logits.float(), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0 or step == cfg.steps - 1:
            print(f"step {step:3d} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
