import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from vq import VectorQuantizer


class SimpleVQAutoEncoder(nn.Module):
    def __init__(self, codebook_size=256):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.MaxPool2d(2), nn.GELU(),
                                 nn.Conv2d(16, 32, 3, padding=1), nn.MaxPool2d(2))
        self.vq = VectorQuantizer(32, codebook_size)
        self.dec = nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(32, 16, 3, padding=1), nn.GELU(),
                                 nn.Upsample(scale_factor=2), nn.Conv2d(16, 1, 3, padding=1))

    def forward(self, x):
        z = self.enc(x)
        b, c, h, w = z.shape
        z_flat = z.flatten(2).transpose(1, 2)
        q, idx, commit = self.vq(z_flat)
        q = q.transpose(1, 2).view(b, c, h, w)
        return self.dec(q).clamp(-1, 1), idx, commit


def train(model, loader, opt, steps, alpha=10.0):
    it = iter(loader)
    for step in range(steps):
        try:
            x, _ = next(it)
        except StopIteration:
            it = iter(loader)
            x, _ = next(it)
        out, idx, commit = model(x)
        rec = (out - x).abs().mean()
        loss = rec + alpha * commit
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0:
            print(step, rec.item(), idx.unique().numel())


if __name__ == "__main__":
    torch.manual_seed(0)
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
    loader = DataLoader(datasets.FashionMNIST("data", train=True, download=True, transform=tf), batch_size=256, shuffle=True)
    ae = SimpleVQAutoEncoder()
    train(ae, loader, torch.optim.AdamW(ae.parameters(), lr=3e-4), steps=2000)
