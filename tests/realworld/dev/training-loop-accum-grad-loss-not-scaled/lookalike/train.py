import argparse

import torch

from model import FrameClassifier


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=0.5)
    p.add_argument("--batch_size", type=int, default=16)
    p.add_argument("--accum_grad_n_steps", type=int, default=8)
    p.add_argument("--n_updates", type=int, default=40)
    return p.parse_args()


def batches(batch_size, seed=0):
    g = torch.Generator().manual_seed(seed)
    protos = torch.randn(10, 40, generator=torch.Generator().manual_seed(7))
    while True:
        ys = torch.randint(0, 10, (batch_size,), generator=g)
        xs = protos[ys] + 1.5 * torch.randn(batch_size, 40, generator=g)
        yield xs, ys


def main():
    args = parse()
    torch.manual_seed(0)
    model = FrameClassifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    it = batches(args.batch_size)
    n_steps = 0
    losses, accs = [], []
    optimizer.zero_grad()
    while n_steps < args.n_updates * args.accum_grad_n_steps:
        xs, ys = next(it)
        loss, acc = model(xs, ys)
        loss.backward()
        losses.append(loss.item())
        accs.append(acc.item())
        n_steps += 1
        if n_steps % args.accum_grad_n_steps == 0:
            for p in model.parameters():
                if p.grad is not None:
                    p.grad.div_(args.accum_grad_n_steps)
            optimizer.step()
            optimizer.zero_grad()
            n_updates = n_steps // args.accum_grad_n_steps
            if n_updates % 5 == 0:
                k = 5 * args.accum_grad_n_steps
                print(f"update {n_updates:3d}  loss {sum(losses[-k:]) / k:.4f}  acc {sum(accs[-k:]) / k:.3f}")


if __name__ == "__main__":
    main()
