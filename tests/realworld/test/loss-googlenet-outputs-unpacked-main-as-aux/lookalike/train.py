import torch
from torch import nn

from data import get_loaders
from model import TinyGoogLeNet

torch.manual_seed(0)
EPOCHS = 6
AUX_WEIGHT = 0.3


def train_one_epoch(model, loader, criterion, optimizer):
    model.train()
    total, n = 0.0, 0
    for inputs, target in loader:
        optimizer.zero_grad()
        aux1, aux2, output = model(inputs)
        loss1 = criterion(output, target)
        loss2 = criterion(aux1, target)
        loss3 = criterion(aux2, target)
        loss = loss1 + AUX_WEIGHT * (loss2 + loss3)
        loss.backward()
        optimizer.step()
        total += loss.item() * target.size(0)
        n += target.size(0)
    return total / n


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct, n = 0, 0
    for inputs, target in loader:
        logits = model(inputs)
        correct += (logits.argmax(1) == target).sum().item()
        n += target.size(0)
    return correct / n


def main():
    train_loader, val_loader = get_loaders()
    model = TinyGoogLeNet(num_classes=6)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(EPOCHS):
        loss = train_one_epoch(model, train_loader, criterion, optimizer)
        acc = evaluate(model, val_loader)
        print(f"epoch {epoch} train loss {loss:.4f} val acc {acc:.3f}")


if __name__ == "__main__":
    main()
