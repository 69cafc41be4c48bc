import torch
import torch.nn.functional as F

from model import SensorClassifier


def load_readings(n=2000, d=20, k=4, noise=0.05, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(k, d, generator=g) * 3
    y = torch.randint(0, k, (n,), generator=g)
    # raw sensor counts, not standardised
    x = (centers[y] + torch.randn(n, d, generator=g)) * 8
    flip = torch.rand(n, generator=g) < noise
    y[flip] = torch.randint(0, k, (int(flip.sum()),), generator=g)
    return x, y, g


def nll_from_probs(probs, target):
    return F.nll_loss(torch.log(probs.clamp_min(1e-12)), target)


def train(clf, x, y, g, steps=300, lr=3e-2, bs=128):
    opt = torch.optim.Adam(clf.parameters(), lr=lr)
    for step in range(steps):
        idx = torch.randint(0, len(x), (bs,), generator=g)
        probs = clf.predict_proba(x[idx])
        loss = nll_from_probs(probs, y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 30 == 0 or step == steps - 1:
            with torch.no_grad():
                acc = (clf(x).argmax(1) == y).float().mean().item()
            print(f"step {step:3d} loss {loss.item():.4f} acc {acc:.3f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    x, y, g = load_readings()
    train(SensorClassifier(), x, y, g)
