import torch
from torch import nn
from torch.utils.data import DataLoader

from datasets import TileDataset, synth_tiles
from model import TileNet


def run_epoch(model, loader, criterion, optimizer=None):
    training = optimizer is not None
    model.train(training)
    total_loss, correct, seen = 0.0, 0, 0
    with torch.set_grad_enabled(training):
        for images, labels in loader:
            logits = model(images)
            loss = criterion(logits, labels)
            if training:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total_loss += loss.item() * len(labels)
            correct += (logits.argmax(1) == labels).sum().item()
            seen += len(labels)
    return total_loss / seen, correct / seen, seen


def main():
    torch.manual_seed(0)
    train_set = TileDataset(*synth_tiles(2000, seed=0), augment=True)
    val_set = TileDataset(*synth_tiles(500, seed=1))
    train_loader = DataLoader(train_set, batch_size=32, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=128)

    model = TileNet()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(1, 5):
        tr_loss, tr_acc, _ = run_epoch(model, train_loader, criterion, optimizer)
        va_loss, va_acc, _ = run_epoch(model, val_loader, criterion)
        print(f"epoch {epoch} train_loss {tr_loss:.4f} train_acc {tr_acc:.3f} "
              f"val_loss {va_loss:.4f} val_acc {va_acc:.3f}")


if __name__ == "__main__":
    main()
