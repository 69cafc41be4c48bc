import torch
import torch.nn as nn
import torch.nn.functional as F


class Embedder(nn.Module):
    def __init__(self, d_in=10, d_emb=8):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d_in, 32), nn.ReLU())
        self.proj = nn.Linear(32, d_emb)

    def forward(self, x):
        return self.proj(self.trunk(x))


def batch_hard_triplet(emb, labels, margin=0.5):
    dist = torch.cdist(emb, emb)
    same = labels[:, None] == labels[None, :]
    hardest_pos = (dist * same).max(1).values
    hardest_neg = (dist + 1e6 * same).min(1).values
    return F.relu(hardest_pos - hardest_neg + margin).mean()


def make_batch(gen, centers, per_class=8):
    k = centers.size(0)
    y = torch.arange(k).repeat_interleave(per_class)
    x = centers[y] + 0.7 * torch.randn(len(y), centers.size(1), generator=gen)
    return x, y


@torch.no_grad()
def nn_accuracy(net, gen, centers):
    x, y = make_batch(gen, centers, per_class=20)
    e = net(x)
    d = torch.cdist(e, e)
    d.fill_diagonal_(float("inf"))
    return (y[d.argmin(1)] == y).float().mean().item()


if __name__ == "__main__":
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    centers = torch.randn(6, 10, generator=gen)
    net = Embedder()
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    for step in range(200):
        x, y = make_batch(gen, centers)
        loss = batch_hard_triplet(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 25 == 0 or step == 199:
            print(f"step {step:3d} loss {loss.item():.4f} 1-NN acc {nn_accuracy(net, gen, centers):.3f}")
