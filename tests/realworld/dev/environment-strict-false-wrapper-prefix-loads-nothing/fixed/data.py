import torch


def make_task(n, seed, dim=32, n_classes=8):
    g = torch.Generator().manual_seed(1234)
    centers = 2.0 * torch.randn(n_classes, dim, generator=g)
    g.manual_seed(seed)
    y = torch.randint(0, n_classes, (n,), generator=g)
    x = centers[y] + torch.randn(n, dim, generator=g)
    return x, y
