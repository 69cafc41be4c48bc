import numpy as np
import torch
import torch.nn as nn
from torchvision import datasets, transforms

from handler import ShadowModelHandler


def train_shadow(net, loader, epochs=20):
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    ce = nn.CrossEntropyLoss()
    for _ in range(epochs):
        net.train()
        for x, y in loader:
            opt.zero_grad()
            ce(net(x), y).backward()
            opt.step()
    return net


def make_net():
    return nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 512), nn.ReLU(), nn.Linear(512, 10))


if __name__ == "__main__":
    pop = datasets.CIFAR10("data", train=True, download=True, transform=transforms.ToTensor())
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(pop))
    members, non_members = idx[:10000], idx[10000:20000]
    handler = ShadowModelHandler(make_net(), pop)
    shadow = train_shadow(make_net(), handler.get_dataloader(members))
    s_in = handler.signal(shadow, members)
    s_out = handler.signal(shadow, non_members)
    thr = np.median(np.concatenate([s_in, s_out]))
    print("attack acc", ((s_in > thr).mean() + (s_out <= thr).mean()) / 2)
