import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import PatchBags


class Encoder(nn.Module):
    def __init__(self, dim, out):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(dim, out), nn.Tanh())

    def forward(self, x):
        return self.proj(x)


@torch.no_grad()
def compute_feats(encoder, dataset):
    loader = DataLoader(dataset, batch_size=128, shuffle=True)
    feats = [encoder(x) for x in loader]
    return torch.cat(feats)


def train_probe(probe, feats, labels, epochs=200):
    opt = torch.optim.Adam(probe.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        opt.zero_grad()
        loss = loss_fn(probe(feats), labels)
        loss.backward()
        opt.step()
        if epoch % 40 == 0:
            print(f"epoch {epoch} probe_loss {loss.item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    train_set, test_set = PatchBags(1500, 24, 0), PatchBags(500, 24, 1)
    encoder = Encoder(24, 32)
    tr_feats = compute_feats(encoder, train_set)
    te_feats = compute_feats(encoder, test_set)
    y_tr = torch.as_tensor(train_set.labels)
    y_te = torch.as_tensor(test_set.labels)
    probe = nn.Linear(32, 2)
    train_probe(probe, tr_feats, y_tr)
    with torch.no_grad():
        print(f"test_acc {(probe(te_feats).argmax(1) == y_te).float().mean().item():.3f}")
