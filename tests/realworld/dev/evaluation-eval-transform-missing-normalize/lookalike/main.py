import torch
import torch.nn as nn
from torchvision.models import resnet34
from data import get_loaders
from utils import AverageMeter, accuracy


def run(loader, net, criterion, device, optimizer=None):
    net.train(optimizer is not None)
    loss_m, acc_m = AverageMeter(), AverageMeter()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        with torch.set_grad_enabled(optimizer is not None):
            out = net(x)
            loss = criterion(out, y)
        if optimizer is not None:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        loss_m.update(loss.item(), x.size(0))
        acc_m.update(accuracy(out, y), x.size(0))
    return loss_m.avg, acc_m.avg


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_loader, val_loader, test_loader = get_loaders("data/UCMerced")
    net = resnet34(num_classes=21).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    for epoch in range(50):
        tl, ta = run(train_loader, net, criterion, device, optimizer)
        vl, va = run(val_loader, net, criterion, device)
        print(f"epoch {epoch} train {tl:.3f}/{ta:.3f} val {vl:.3f}/{va:.3f}")
    print("test", run(test_loader, net, criterion, device))
