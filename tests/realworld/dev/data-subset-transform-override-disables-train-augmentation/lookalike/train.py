import torch
import torch.nn as nn
from torchvision.models import resnet18

from data import get_dataloaders

CONFIG = {"root": "./data", "val_fraction": 0.1, "seed": 0, "batch_size": 128, "epochs": 100, "lr": 0.1}


def evaluate(net, loader, device):
    net.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (net(x.to(device)).argmax(1).cpu() == y).sum().item()
    return correct / len(loader.dataset)


def train(net, loader, opt, loss_fn, device):
    net.train()
    for x, y in loader:
        opt.zero_grad()
        loss_fn(net(x.to(device)), y.to(device)).backward()
        opt.step()


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_loader, val_loader = get_dataloaders(CONFIG)
    net = resnet18(num_classes=100).to(device)
    opt = torch.optim.SGD(net.parameters(), lr=CONFIG["lr"], momentum=0.9, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, CONFIG["epochs"])
    for epoch in range(CONFIG["epochs"]):
        train(net, train_loader, opt, nn.CrossEntropyLoss(), device)
        sched.step()
        print(epoch, evaluate(net, val_loader, device))
