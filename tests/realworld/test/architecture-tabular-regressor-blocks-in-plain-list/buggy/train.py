import torch
import torch.nn as nn

from config import Config
from model import TabularRegressor


def make_data(cfg, n=2048):
    g = torch.Generator().manual_seed(cfg.seed)
    x = torch.randn(n, cfg.in_features, generator=g)
    y = torch.sin(2.0 * x[:, 0]) * x[:, 1] + (x[:, 2] * x[:, 3]).abs() - 0.5 * x[:, 4] ** 2
    return x, y


def train(net, x, y, optimizer, cfg):
    objective = nn.MSELoss()
    n = x.shape[0]
    for step in range(cfg.steps):
        idx = torch.randint(0, n, (cfg.batch_size,))
        pred = net(x[idx])
        loss = objective(pred, y[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 0 or step == cfg.steps - 1:
            print(f"step {step:4d}  mse {loss.item():.4f}")


def evaluate(net, x, y):
    net.eval()
    with torch.no_grad():
        return nn.functional.mse_loss(net(x), y).item()


if __name__ == "__main__":
    cfg = Config()
    torch.manual_seed(cfg.seed)
    x, y = make_data(cfg)
    x_tr, y_tr, x_va, y_va = x[:1536], y[:1536], x[1536:], y[1536:]
    net = TabularRegressor(cfg.in_features, cfg.hidden, cfg.n_blocks)
    print("trainable tensors:", len(list(net.parameters())))
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    train(net, x_tr, y_tr, optimizer, cfg)
    print(f"val mse {evaluate(net, x_va, y_va):.4f}")
