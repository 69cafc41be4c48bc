import numpy as np
import torch
from torch.utils.data import DataLoader

from forecast import make_series, WindowDataset, QuantileMLP, quantile_loss, interval_report

CONFIG = {
    "context": 48,
    "horizon": 6,
    "quantiles": [0.1, 0.5, 0.9],
    "epochs": 6,
    "batch_size": 128,
    "lr": 3e-3,
}


def main(cfg=CONFIG):
    torch.manual_seed(0)
    series = make_series(6000, seed=1)
    split = 4800
    train_part, test_part = series[:split], series[split:]
    mean, std = float(train_part.mean()), float(train_part.std())

    train_ds = WindowDataset(train_part, cfg["context"], cfg["horizon"], mean, std)
    test_ds = WindowDataset(test_part, cfg["context"], cfg["horizon"], mean, std)
    train_dl = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
    test_dl = DataLoader(test_ds, batch_size=512)

    model = QuantileMLP(cfg["context"] + 2, cfg["horizon"], cfg["quantiles"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])

    for epoch in range(cfg["epochs"]):
        running = 0.0
        for x, y in train_dl:
            pred = model(x)
            loss = quantile_loss(y, pred, model.quantiles)
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.item() * len(x)
        print(f"epoch {epoch:2d}  pinball {running / len(train_ds):.4f}")

    coverage, width = interval_report(model, test_dl, lo_idx=0, hi_idx=2, std=std)
    nominal = cfg["quantiles"][2] - cfg["quantiles"][0]
    print(f"test coverage of the {nominal:.0%} interval: {coverage:.3f}  mean width: {width:.3f}")


if __name__ == "__main__":
    main()
