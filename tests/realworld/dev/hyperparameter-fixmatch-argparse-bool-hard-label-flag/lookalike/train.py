import argparse
import math

import torch
from torch.utils.data import DataLoader, RandomSampler

from data import build_datasets
from fixmatch import FixMatch, build_net


def get_args():
    parser = argparse.ArgumentParser(description="FixMatch on CIFAR-10", fromfile_prefix_chars="@")
    parser.add_argument("--data_dir", default="./data")
    parser.add_argument("--num_labels", type=int, default=4000)
    parser.add_argument("--num_train_iter", type=int, default=2 ** 20)
    parser.add_argument("--eval_every", type=int, default=5000)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--uratio", type=int, default=7)
    parser.add_argument("--lr", type=float, default=0.03)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--weight_decay", type=float, default=5e-4)
    parser.add_argument("--ema_m", type=float, default=0.999)
    parser.add_argument("--ulb_loss_ratio", type=float, default=1.0)
    parser.add_argument("--hard_label", type=int, default=1, choices=[0, 1])
    parser.add_argument("--T", type=float, default=0.5)
    parser.add_argument("--p_cutoff", type=float, default=0.95)
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def cosine_lambda(total_steps, num_cycles=7.0 / 16.0):
    return lambda step: max(0.0, math.cos(math.pi * num_cycles * step / total_steps))


def forever(loader):
    while True:
        for batch in loader:
            yield batch


def main():
    args = get_args()
    torch.manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"

    labeled, unlabeled, test = build_datasets(args.data_dir, args.num_labels, seed=args.seed)
    lb_loader = DataLoader(labeled, batch_size=args.batch_size, num_workers=4, drop_last=True,
                           sampler=RandomSampler(labeled, replacement=True, num_samples=args.num_train_iter * args.batch_size))
    ulb_loader = DataLoader(unlabeled, batch_size=args.batch_size * args.uratio, shuffle=True,
                            num_workers=4, drop_last=True)
    test_loader = DataLoader(test, batch_size=256, num_workers=4)

    net = build_net().to(device)
    decay, no_decay = [], []
    for name, p in net.named_parameters():
        (no_decay if p.ndim == 1 else decay).append(p)
    optimizer = torch.optim.SGD([{"params": decay, "weight_decay": args.weight_decay},
                                 {"params": no_decay, "weight_decay": 0.0}],
                                lr=args.lr, momentum=args.momentum, nesterov=True)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, cosine_lambda(args.num_train_iter))

    algo = FixMatch(net, optimizer, scheduler, T=args.T, p_cutoff=args.p_cutoff,
                    lambda_u=args.ulb_loss_ratio, hard_label=bool(args.hard_label), ema_m=args.ema_m)

    ulb_iter = forever(ulb_loader)
    for it, (x_lb, y_lb) in enumerate(lb_loader):
        x_ulb_w, x_ulb_s = next(ulb_iter)
        stats = algo.train_step(x_lb.to(device), y_lb.to(device), x_ulb_w.to(device), x_ulb_s.to(device))
        if it % args.eval_every == 0:
            acc = algo.evaluate(test_loader, device)
            print(f"iter {it} sup {stats['sup']:.3f} unsup {stats['unsup']:.3f} "
                  f"mask {stats['mask']:.2f} test_acc {acc:.4f}")


if __name__ == "__main__":
    main()
