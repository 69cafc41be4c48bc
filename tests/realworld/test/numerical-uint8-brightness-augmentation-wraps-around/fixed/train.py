import torch
from torch import nn

from data import get_loaders


def build_model():
    return nn.Sequential(nn.Flatten(), nn.Linear(144, 32), nn.ReLU(), nn.Linear(32, 2))


@torch.no_grad()
def accuracy(model, loader):
    model.eval()
    hits = sum((model(x).argmax(1) == y).sum().item() for x, y in loader)
    model.train()
    return hits / len(loader.dataset)


def main():
    torch.manual_seed(0)
    train_loader, val_loader = get_loaders()
    model = build_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    crit = nn.CrossEntropyLoss()
    for epoch in range(10):
        running = 0.0
        for x, y in train_loader:
            opt.zero_grad()
            loss = crit(model(x), y)
            loss.backward()
            opt.step()
            running += loss.item()
        if epoch % 3 == 2 or epoch == 9:
            print(f"epoch {epoch + 1}: train loss {running / len(train_loader):.3f} "
                  f"val acc {accuracy(model, val_loader):.3f}")


if __name__ == "__main__":
    main()
