import argparse

import torch
import torch.nn.functional as F
from torch.optim import SGD
from torch.optim.lr_scheduler import LambdaLR

from data import ForeverIterator, build_loaders
from losses import minimum_class_confusion
from models import ConvBackbone, ImageClassifier


def get_args():
    p = argparse.ArgumentParser(description="MCC + SDAT style adaptation (toy)")
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--lr-gamma", type=float, default=0.001)
    p.add_argument("--lr-decay", type=float, default=0.75)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--wd", type=float, default=1e-3)
    p.add_argument("--trade-off", type=float, default=1.0)
    p.add_argument("--iters-per-epoch", type=int, default=20)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--num-classes", type=int, default=5)
    return p.parse_args()


def train_one_epoch(src_iter, tgt_iter, model, optimizer, lr_scheduler, epoch, args):
    model.train()
    for i in range(args.iters_per_epoch):
        x_s, y_s = next(src_iter)
        x_t, _ = next(tgt_iter)
        x = torch.cat([x_s, x_t], dim=0)
        y, _ = model(x)
        y_s_pred, y_t_pred = y.chunk(2, dim=0)

        cls_loss = F.cross_entropy(y_s_pred, y_s)
        transfer_loss = minimum_class_confusion(y_t_pred)
        loss = cls_loss + args.trade_off * transfer_loss

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        lr_scheduler.step()

        if i % 10 == 0:
            acc = (y_s_pred.argmax(1) == y_s).float().mean().item()
            print(f"epoch {epoch} it {i:3d} lr {lr_scheduler.get_last_lr()[1]:.6f} "
                  f"cls {cls_loss.item():.4f} mcc {transfer_loss.item():.4f} acc {acc:.3f}")


def main():
    args = get_args()
    torch.manual_seed(0)
    src_loader, tgt_loader = build_loaders(args.batch_size, args.num_classes)
    src_iter, tgt_iter = ForeverIterator(src_loader), ForeverIterator(tgt_loader)

    model = ImageClassifier(ConvBackbone(), args.num_classes)
    optimizer = SGD(model.get_parameters(), args.lr, momentum=args.momentum,
                    weight_decay=args.wd, nesterov=True)
    lr_scheduler = LambdaLR(optimizer, lambda x: args.lr * (1. + args.lr_gamma * float(x)) ** (-args.lr_decay))

    for epoch in range(args.epochs):
        train_one_epoch(src_iter, tgt_iter, model, optimizer, lr_scheduler, epoch, args)


if __name__ == "__main__":
    main()
