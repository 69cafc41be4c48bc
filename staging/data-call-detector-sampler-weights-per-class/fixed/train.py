import torch
from torch import nn
from sklearn.metrics import f1_score

from config import TrainConfig
from data import get_loaders
from model import SpecResNet


def train_epoch(model, loader, optimizer, criterion, device):
    model.train()
    running = 0.0
    for spec, label in loader:
        spec, label = spec.to(device), label.to(device)
        optimizer.zero_grad()
        loss = criterion(model(spec), label)
        loss.backward()
        optimizer.step()
        running += loss.item()
    return running / max(len(loader), 1)


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    preds, targets = [], []
    for spec, label in loader:
        logits = model(spec.to(device))
        preds.append(logits.argmax(dim=1).cpu())
        targets.append(label)
    preds = torch.cat(preds).numpy()
    targets = torch.cat(targets).numpy()
    return f1_score(targets, preds, average="macro")


def main():
    cfg = TrainConfig()
    device = torch.device(cfg.device if torch.cuda.is_available() else "cpu")
    train_loader, val_loader = get_loaders(cfg)
    model = SpecResNet(num_classes=len(cfg.data.label_names)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    criterion = nn.CrossEntropyLoss()
    best = 0.0
    for epoch in range(cfg.epochs):
        loss = train_epoch(model, train_loader, optimizer, criterion, device)
        f1 = validate(model, val_loader, device)
        print(f"epoch {epoch}: train loss {loss:.4f}  val macro-F1 {f1:.4f}")
        if f1 > best:
            best = f1
            torch.save(model.state_dict(), "best.pth")


if __name__ == "__main__":
    main()
