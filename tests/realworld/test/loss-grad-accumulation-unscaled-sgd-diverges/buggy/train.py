import torch
import torch.nn as nn

from config import Config


class Probe(nn.Module):
    def __init__(self, d_in=32, d_hidden=64):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, d_hidden), nn.Tanh())
        self.readout = nn.Linear(d_hidden, 1)

    def forward(self, x):
        return self.readout(self.encoder(x)).squeeze(-1)


def sample(gen, n, w_true):
    x = torch.randn(n, w_true.numel(), generator=gen)
    return x, torch.tanh(x @ w_true) + 0.1 * torch.randn(n, generator=gen)


def train(probe, cfg):
    gen = torch.Generator().manual_seed(cfg.seed)
    w_true = torch.randn(32, generator=gen) / 4
    opt = torch.optim.SGD(probe.parameters(), lr=cfg.lr, momentum=0.9)
    mse = nn.MSELoss()
    for step in range(cfg.steps):
        opt.zero_grad()
        running = 0.0
        for _ in range(cfg.accum_steps):
            x, y = sample(gen, cfg.micro_batch, w_true)
            loss = mse(probe(x), y)
            loss.backward()
            running += loss.item() / cfg.accum_steps
        opt.step()
        if step % 15 == 0 or step == cfg.steps - 1:
            print(f"step {step:3d} loss {running:.4f}")


if __name__ == "__main__":
    cfg = Config()
    torch.manual_seed(cfg.seed)
    train(Probe(), cfg)
