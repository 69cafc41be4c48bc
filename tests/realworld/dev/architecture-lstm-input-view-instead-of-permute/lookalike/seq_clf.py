import argparse

import numpy as np
import torch
import torch.nn as nn


def make_batch(rng, batch, seq_len, n_feat):
    x = rng.standard_normal((batch, seq_len, n_feat)).astype(np.float32)
    # class = whether the first channel trends upward over the sequence
    trend = rng.choice([-1.0, 1.0], size=batch).astype(np.float32)
    x[:, :, 0] += trend[:, None] * np.linspace(-1.5, 1.5, seq_len, dtype=np.float32)
    y = (trend > 0).astype(np.int64)
    return torch.from_numpy(x), torch.from_numpy(y)


class SensorClassifier(nn.Module):
    """Expects windows shaped (batch, seq_len, n_feat) as produced by the loader."""

    def __init__(self, n_feat, hidden, n_classes=2):
        super().__init__()
        self.rnn = nn.LSTM(n_feat, hidden, batch_first=True)
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, x):
        batch, seq_len, n_feat = x.shape
        x = x.reshape(batch, seq_len, n_feat).contiguous()
        seq_out, (h_n, c_n) = self.rnn(x)
        last = seq_out.reshape(batch * seq_len, -1).view(batch, seq_len, -1)[:, -1]
        return self.out(last)


def run(args):
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    clf = SensorClassifier(args.n_feat, args.hidden)
    opt = torch.optim.Adam(clf.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    for step in range(args.steps):
        xb, yb = make_batch(rng, args.batch, args.seq_len, args.n_feat)
        logits = clf(xb)
        loss = loss_fn(logits, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            acc = (logits.argmax(1) == yb).float().mean().item()
            print(f"step {step:3d}  loss {loss.item():.4f}  batch acc {acc:.3f}")
    clf.eval()
    with torch.no_grad():
        xt, yt = make_batch(rng, 1000, args.seq_len, args.n_feat)
        acc = (clf(xt).argmax(1) == yt).float().mean().item()
    print(f"held-out acc {acc:.3f}")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--n-feat", type=int, default=6)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--seq-len", type=int, default=20)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--lr", type=float, default=5e-3)
    p.add_argument("--steps", type=int, default=250)
    p.add_argument("--seed", type=int, default=0)
    run(p.parse_args())
