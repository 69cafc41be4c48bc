import torch


def make_dataset(n=2048, x_dim=20, seed=0):
    """Two attribute classes; each sample is a class direction plus low-rank structure and noise."""
    g = torch.Generator().manual_seed(seed)
    basis = torch.randn(4, x_dim, generator=g)
    class_dir = torch.randn(2, x_dim, generator=g)
    c = torch.randint(0, 2, (n,), generator=g)
    latent = torch.randn(n, 4, generator=g)
    x = latent @ basis * 0.5 + class_dir[c] + 0.1 * torch.randn(n, x_dim, generator=g)
    return x, c


def batches(x, c, batch_size, generator):
    perm = torch.randperm(x.size(0), generator=generator)
    for i in range(0, x.size(0), batch_size):
        idx = perm[i:i + batch_size]
        yield x[idx], c[idx]
