import torch
import torch.nn.functional as F

from data import build_loaders
from model import OrderClassifier

CONFIG = {
    "n_train": 2048,
    "n_val": 512,
    "seq_len": 8,
    "vocab_size": 8,
    "batch_size": 32,
    "epochs": 4,
    "lr": 3e-3,
}


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = total = 0
    for tokens, labels in loader:
        pred = model(tokens).argmax(dim=-1)
        correct += (pred == labels).sum().item()
        total += labels.numel()
    model.train()
    return correct / total


def main():
    torch.manual_seed(0)
    train_loader, val_loader = build_loaders(CONFIG)
    model = OrderClassifier(CONFIG["vocab_size"])
    optimizer = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])

    step = 0
    for epoch in range(CONFIG["epochs"]):
        running = 0.0
        for tokens, labels in train_loader:
            logits = model(tokens)
            loss = F.cross_entropy(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()
            step += 1
        print(f"epoch {epoch} step {step} train_loss {running / len(train_loader):.4f} "
              f"val_acc {evaluate(model, val_loader):.3f}")


if __name__ == "__main__":
    main()
