import torch
from torch import nn
from torch.utils.data import DataLoader, random_split

from data import SyntheticGestureClips
from model import MotionTagger

CONFIG = {"epochs": 8, "batch_size": 64, "lr": 2e-3, "pose_dim": 12, "hidden": 48}


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for poses, tags in loader:
            correct += (model(poses).argmax(dim=1) == tags).sum().item()
            total += tags.numel()
    return correct / total


def main():
    torch.manual_seed(0)
    dataset = SyntheticGestureClips(pose_dim=CONFIG["pose_dim"])
    train_set, val_set = random_split(dataset, [1000, 200], generator=torch.Generator().manual_seed(0))
    train_loader = DataLoader(train_set, batch_size=CONFIG["batch_size"], shuffle=True)
    val_loader = DataLoader(val_set, batch_size=CONFIG["batch_size"])

    model = MotionTagger(CONFIG["pose_dim"], n_tags=2, hidden=CONFIG["hidden"])
    optimizer = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
    criterion = nn.CrossEntropyLoss()
    for epoch in range(CONFIG["epochs"]):
        model.train()
        running = 0.0
        for poses, tags in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(poses), tags)
            loss.backward()
            optimizer.step()
            running += loss.item() * tags.numel()
        print(f"epoch {epoch} train loss {running / len(train_set):.4f} val acc {evaluate(model, val_loader):.3f}")


if __name__ == "__main__":
    main()
