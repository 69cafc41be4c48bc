import argparse
import datetime

import torch
from torch import nn
from torch.utils.data import DataLoader

from data_read import SyntheticPersonDataset
from networks import resnet_tiny

parser = argparse.ArgumentParser(description="Train a re-ID identity classifier.")
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--epochs", type=str, default="3,8,12")
parser.add_argument("--lr", type=float, default=3.5e-3)
parser.add_argument("--wd", type=float, default=5e-4)
parser.add_argument("--num-ids", type=int, default=20)
parser.add_argument("--seed", type=int, default=613)


def get_data_iters(opt):
    train_imgs = SyntheticPersonDataset(opt.num_ids, 24, seed=1, flip=True)
    val_imgs = SyntheticPersonDataset(opt.num_ids, 12, seed=2)
    train_data = DataLoader(train_imgs, opt.batch_size, shuffle=True, drop_last=True)
    val_data = DataLoader(val_imgs, opt.batch_size, shuffle=True, drop_last=False)
    return train_data, val_data


class AverageMeter:
    """Running average weighted by the number of samples in each update."""

    def __init__(self):
        self.sum, self.count, self.avg = 0.0, 0, 0.0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def validate(val_data, net, criterion):
    net.eval()
    _loss = 0.0
    acc_meter = AverageMeter()
    with torch.no_grad():
        for data, label in val_data:
            outputs = net(data)
            loss = criterion(outputs, label)
            accuracy = (outputs.argmax(dim=1) == label).float().mean().item()
            acc_meter.update(accuracy, label.size(0))
            _loss += loss.item()
    net.train()
    return _loss / len(val_data), acc_meter.avg


def main(net, epochs, opt):
    train_data, val_data = get_data_iters(opt)
    trainer = torch.optim.Adam(net.parameters(), lr=opt.lr, weight_decay=opt.wd)
    criterion = nn.CrossEntropyLoss()

    lr = opt.lr
    minlr = lr * 0.01
    dlr = (lr - minlr) / (epochs[0] - 1)
    prev_time = datetime.datetime.now()
    for epoch in range(epochs[-1]):
        _loss = 0.0
        if epoch < epochs[0]:
            lr = minlr + dlr * epoch
        if epoch in epochs[1:]:
            lr = lr * 0.1
        for group in trainer.param_groups:
            group["lr"] = lr

        for data, label in train_data:
            trainer.zero_grad()
            loss = criterion(net(data), label)
            loss.backward()
            trainer.step()
            _loss += loss.item()

        cur_time = datetime.datetime.now()
        val_loss, val_accuracy = validate(val_data, net, criterion)
        print("Epoch %d. Train loss: %f, Val loss %f, Val accuracy %f, lr %g, %.1fs"
              % (epoch, _loss / len(train_data), val_loss, val_accuracy, lr,
                 (cur_time - prev_time).total_seconds()))
        prev_time = cur_time


if __name__ == "__main__":
    opt = parser.parse_args()
    torch.manual_seed(opt.seed)
    epochs = [int(i) for i in opt.epochs.split(",")]
    net = resnet_tiny(num_classes=opt.num_ids)
    main(net, epochs, opt)
