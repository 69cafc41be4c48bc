import torch
import torch.nn as nn
from model import Regressor


def make_data(n, gen):
    x = torch.randn(n, 8, generator=gen)
    y = torch.sin(2 * x[:, 0]) * x[:, 1] + torch.cos(3 * x[:, 2] * x[:, 3])
    return x, y


def fit(net, x, y, steps=300, lr=3e-3):
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    objective = nn.MSELoss()
    for step in range(steps):
        idx = torch.randint(0, x.shape[0], (128,))
        opt.zero_grad()
        loss = objective(net(x[idx]), y[idx])
        loss.backward()
        opt.step()
        if step % 50 == 0 or step == steps - 1:
            print(f"step {step:4d} loss {loss.item():.4f}")
    return net


if __name__ == "__main__":
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    x, y = make_data(4096, gen)
    xv, yv = make_data(1024, gen)
    net = Regressor()
    print("trainable tensors:", len(list(net.parameters())))
    fit(net, x, y)
    with torch.no_grad():
        print(f"val mse {nn.functional.mse_loss(net(xv), yv).item():.4f}")
