import torch
import torch.nn as nn

from net import HousingNet

HPARAMS = {"lr": 2e-3, "epochs": 40, "batch_size": 128, "seed": 7}


def synth_prices(n, n_in, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, n_in, generator=g)
    w = torch.randn(n_in, generator=g)
    price = 200.0 + 40.0 * (x @ w) / n_in ** 0.5 + 15.0 * torch.tanh(x[:, 0] * x[:, 1])
    return x, price


def standardize(y, mean=None, std=None):
    mean = y.mean() if mean is None else mean
    std = y.std() if std is None else std
    return (y - mean) / std, mean, std


def fit(net, x, y, hp):
    opt = torch.optim.Adam(net.parameters(), lr=hp["lr"])
    criterion = nn.MSELoss()
    n = len(x)
    for epoch in range(hp["epochs"]):
        perm = torch.randperm(n)
        total = 0.0
        for i in range(0, n, hp["batch_size"]):
            idx = perm[i:i + hp["batch_size"]]
            loss = criterion(net(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        if epoch % 5 == 0 or epoch == hp["epochs"] - 1:
            print(f"epoch {epoch:2d}  train mse (std units) {total / n:.4f}")


if __name__ == "__main__":
    torch.manual_seed(HPARAMS["seed"])
    x, price = synth_prices(3000, 12, HPARAMS["seed"])
    y, mu, sd = standardize(price[:2500])
    net = HousingNet(12)
    fit(net, x[:2500], y, HPARAMS)
    net.eval()
    with torch.no_grad():
        pred = net(x[2500:]) * sd + mu
    rmse = torch.sqrt(((pred - price[2500:]) ** 2).mean()).item()
    print(f"test RMSE {rmse:.2f}  (price std {sd.item():.2f})")
