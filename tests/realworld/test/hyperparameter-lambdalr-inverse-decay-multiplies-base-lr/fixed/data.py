import torch
from torch.utils.data import DataLoader, TensorDataset


def make_domain(n, num_classes, shift, seed):
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, num_classes, (n,), generator=g)
    protos = torch.randn(num_classes, 3, 1, 1, generator=torch.Generator().manual_seed(0))
    images = protos[labels] + 0.6 * torch.randn(n, 3, 16, 16, generator=g) + shift
    return TensorDataset(images, labels)


def build_loaders(batch_size, num_classes):
    source = make_domain(512, num_classes, shift=0.0, seed=1)
    target = make_domain(512, num_classes, shift=0.4, seed=2)
    src = DataLoader(source, batch_size=batch_size, shuffle=True, drop_last=True)
    tgt = DataLoader(target, batch_size=batch_size, shuffle=True, drop_last=True)
    return src, tgt


class ForeverIterator:
    def __init__(self, loader):
        self.loader = loader
        self.it = iter(loader)

    def __next__(self):
        try:
            return next(self.it)
        except StopIteration:
            self.it = iter(self.loader)
            return next(self.it)
