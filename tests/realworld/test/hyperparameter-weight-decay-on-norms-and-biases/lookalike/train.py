import torch
import torch.nn as nn


def build_optimizer(net, lr=3e-4):
    # small probe head on frozen features; no regularisation needed
    return torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=0.0)


if __name__ == "__main__":
    probe = nn.Sequential(nn.LayerNorm(768), nn.Linear(768, 10))
    opt = build_optimizer(probe)
    feats = torch.randn(256, 768)
    labels = torch.randint(0, 10, (256,))
    for step in range(100):
        loss = nn.functional.cross_entropy(probe(feats), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
