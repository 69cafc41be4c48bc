import torch
import torch.nn as nn
from model import SeqClassifier


def batch(n, gen, vocab=6, length=8):
    t = torch.randint(0, vocab, (n, length), generator=gen)
    same = torch.rand(n, generator=gen) < 0.5
    t[same, -1] = t[same, 0]
    return t, (t[:, 0] == t[:, -1]).long()


def run(model, steps=400):
    gen = torch.Generator().manual_seed(1)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    for step in range(steps):
        x, y = batch(64, gen)
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"step {step} loss {loss.item():.3f}")
    xv, yv = batch(1000, gen)
    with torch.no_grad():
        acc = (model(xv).argmax(-1) == yv).float().mean().item()
    print(f"val accuracy {acc:.3f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    run(SeqClassifier())
