import torch
import torch.nn.functional as F

from model import SetClassifier


def make_batch(gen, bs=32, length=6, d=8):
    x = torch.randn(bs, length, d, generator=gen)
    keep = torch.rand(bs, length, generator=gen) > 0.5
    # some sets arrive empty after filtering
    keep[:2] = False
    score = (x[..., 0] * keep).sum(1)
    y = torch.bucketize(score, torch.tensor([-0.7, 0.7]))
    return x, keep, y


def train(net, opt, steps=200, seed=0):
    gen = torch.Generator().manual_seed(seed)
    for step in range(steps):
        x, keep, y = make_batch(gen)
        logits = net(x, keep)
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 25 == 0 or step == steps - 1:
            acc = (logits.argmax(1) == y).float().mean().item()
            print(f"step {step:4d} loss {loss.item():.4f} acc {acc:.3f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    net = SetClassifier()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    train(net, opt)
