import numpy as np
import torch

from config import TrainConfig
from model import GPT


def get_batch(data, cfg, batch_size, device):
    ix = np.random.randint(0, len(data) - cfg.block_size - 1, batch_size)
    x = torch.stack([torch.from_numpy(data[i:i + cfg.block_size].astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + cfg.block_size].astype(np.int64)) for i in ix])
    return x.to(device), y.to(device)


def main():
    cfg = TrainConfig()
    device = "cuda"
    data = np.memmap("data/redpajama_sample/train.bin", dtype=np.uint16, mode="r")
    model = GPT(cfg).to(device)
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=cfg.learning_rate, weight_decay=cfg.weight_decay, betas=(cfg.beta1, cfg.beta2)
    )
    for it in range(cfg.max_iters):
        x, y = get_batch(data, cfg, 16, device)
        loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        optimizer.step()
        if it % 100 == 0:
            print(f"iter {it}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
