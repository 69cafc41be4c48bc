import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.stack = nn.Sequential(
            nn.Linear(20, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(256, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(256, 2),
        )

    def forward(self, x):
        return self.stack(x)


def make_split(n, gen, w):
    x = torch.randn(n, 20, generator=gen)
    y = ((x @ w) > 0).long()
    flip = torch.rand(n, generator=gen) < 0.2
    y[flip] = 1 - y[flip]
    return TensorDataset(x, y)


def train(dataloader, model, loss_fn, optimizer):
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    print(f"train loss: {loss.item():>7f}")


def test(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    test_loss, correct = 0.0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item() * len(X)
            correct += (pred.argmax(1) == y).sum().item()
    print(f"test acc {correct / size:.3f}  avg loss {test_loss / size:.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    w = torch.randn(20, generator=gen)
    train_dataloader = DataLoader(make_split(300, gen, w), batch_size=32, shuffle=True)
    test_dataloader = DataLoader(make_split(2000, gen, w), batch_size=256)
    model = NeuralNetwork()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for t in range(12):
        print(f"Epoch {t + 1}")
        train(train_dataloader, model, loss_fn, optimizer)
        test(test_dataloader, model, loss_fn)
