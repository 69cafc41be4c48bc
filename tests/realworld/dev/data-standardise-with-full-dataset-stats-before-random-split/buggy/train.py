import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split


def load_sensor_tensor(path):
    blob = torch.load(path)
    return blob["x"].float(), blob["y"].long()


def standardise(x, mean, std):
    return (x - mean) / (std + 1e-8)


class Net1D(nn.Module):
    def __init__(self, channels, n_classes):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(channels, 32, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.fc = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.fc(self.conv(x).squeeze(-1))


def main():
    x, y = load_sensor_tensor("har_windows.pt")
    mean = x.mean(dim=(0, 2), keepdim=True)
    std = x.std(dim=(0, 2), keepdim=True)
    ds = TensorDataset(standardise(x, mean, std), y)
    n_test = len(ds) // 5
    train_ds, test_ds = random_split(ds, [len(ds) - n_test, n_test], generator=torch.Generator().manual_seed(0))
    model = Net1D(x.shape[1], int(y.max()) + 1)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    ce = nn.CrossEntropyLoss()
    for epoch in range(30):
        for xb, yb in DataLoader(train_ds, batch_size=64, shuffle=True):
            opt.zero_grad()
            ce(model(xb), yb).backward()
            opt.step()
    with torch.no_grad():
        xt, yt = next(iter(DataLoader(test_ds, batch_size=len(test_ds))))
        print("test acc", (model(xt).argmax(1) == yt).float().mean().item())


if __name__ == "__main__":
    main()
