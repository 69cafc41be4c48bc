import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

HP = dict(n_classes=8, per_class=150, dim=32, batch_size=32, lr=0.05, epochs=4)


class FolderLikeDataset(Dataset):
    """Mimics ImageFolder: samples are listed class by class."""

    def __init__(self, n_classes, per_class, dim, seed):
        g = torch.Generator().manual_seed(seed)
        self.protos = torch.randn(n_classes, dim, generator=torch.Generator().manual_seed(123))
        self.samples = []
        for c in range(n_classes):
            for _ in range(per_class):
                self.samples.append((self.protos[c] + 1.5 * torch.randn(dim, generator=g), c))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return self.samples[i]


def build_loaders(hp):
    train_set = FolderLikeDataset(hp["n_classes"], hp["per_class"], hp["dim"], seed=1)
    val_set = FolderLikeDataset(hp["n_classes"], 50, hp["dim"], seed=2)
    trainloader = DataLoader(train_set, batch_size=hp["batch_size"], shuffle=True)
    valloader = DataLoader(val_set, batch_size=256, shuffle=False)
    return trainloader, valloader


def evaluate(net, loader):
    net.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (net(x).argmax(1) == y).sum().item()
            total += len(y)
    net.train()
    return correct / total


def main():
    torch.manual_seed(0)
    trainloader, valloader = build_loaders(HP)
    net = nn.Sequential(nn.Linear(HP["dim"], 64), nn.ReLU(), nn.Linear(64, HP["n_classes"]))
    opt = torch.optim.SGD(net.parameters(), lr=HP["lr"], momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(HP["epochs"]):
        for x, y in trainloader:
            loss = criterion(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}  last batch loss {loss.item():.4f}  val acc {evaluate(net, valloader):.3f}")


if __name__ == "__main__":
    main()
