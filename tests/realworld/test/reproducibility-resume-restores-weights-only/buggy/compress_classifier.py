import argparse

import torch
import torch.nn as nn
from torchvision.models import mobilenet_v2

from checkpoint import load_checkpoint, save_checkpoint
from data import load_data


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--resume", default="")
    args = p.parse_args()

    model = mobilenet_v2(num_classes=1000).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=4e-5)
    start_epoch = 0
    if args.resume:
        model, start_epoch = load_checkpoint(model, args.resume, optimizer=optimizer)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.97)
    criterion = nn.CrossEntropyLoss()
    train_loader, val_loader = load_data()
    for epoch in range(start_epoch, args.epochs):
        model.train()
        for inputs, target in train_loader:
            loss = criterion(model(inputs.cuda()), target.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        save_checkpoint(epoch, "mobilenet_v2", model, optimizer)


if __name__ == "__main__":
    main()
