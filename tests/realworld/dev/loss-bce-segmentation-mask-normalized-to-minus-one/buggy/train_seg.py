import torch
from torch import nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

IMG_MEAN, IMG_STD = 0.5, 0.5


class PairedNormalize:
    def __init__(self, mean, std):
        self.mean, self.std = mean, std

    def __call__(self, image, mask):
        image = (image - self.mean) / self.std
        mask = (mask - self.mean) / self.std
        return image, mask


class PairedHFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, image, mask):
        if torch.rand(()) < self.p:
            return image.flip(-1), mask.flip(-1)
        return image, mask


class BlobDataset(Dataset):
    def __init__(self, n, size=16, seed=0, transforms=()):
        g = torch.Generator().manual_seed(seed)
        yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
        self.images, self.masks = [], []
        for _ in range(n):
            cy, cx = torch.randint(3, size - 3, (2,), generator=g).tolist()
            r = float(torch.randint(2, 5, (1,), generator=g))
            mask = (((yy - cy) ** 2 + (xx - cx) ** 2) <= r * r).float().unsqueeze(0)
            image = 0.35 + 0.3 * mask + 0.12 * torch.randn(1, size, size, generator=g)
            self.images.append(image.clamp(0, 1))
            self.masks.append(mask)
        self.transforms = transforms

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        image, mask = self.images[idx], self.masks[idx]
        for t in self.transforms:
            image, mask = t(image, mask)
        return image, mask


class TinyUNet(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, ch, 3, padding=1), nn.ReLU(), nn.Conv2d(ch, ch, 3, padding=1), nn.ReLU())
        self.down = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(ch, 2 * ch, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(2 * ch, ch, 2, stride=2)
        self.out = nn.Conv2d(2 * ch, 1, 1)

    def forward(self, x):
        e = self.enc(x)
        d = self.up(self.down(e))
        return self.out(torch.cat([e, d], dim=1))


def dice_score(logits, mask):
    pred = (logits > 0).float()
    target = (mask > 0).float()
    inter = (pred * target).sum()
    return (2 * inter / (pred.sum() + target.sum() + 1e-6)).item()


def main():
    torch.manual_seed(0)
    train_tf = [PairedHFlip(), PairedNormalize(IMG_MEAN, IMG_STD)]
    val_tf = [PairedNormalize(IMG_MEAN, IMG_STD)]
    train_loader = DataLoader(BlobDataset(160, seed=0, transforms=train_tf), batch_size=16, shuffle=True)
    val_loader = DataLoader(BlobDataset(128, seed=1, transforms=val_tf), batch_size=128)
    model = TinyUNet()
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(5):
        model.train()
        for image, mask in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(image), mask)
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            image, mask = next(iter(val_loader))
            logits = model(image)
            val_loss = criterion(logits, mask).item()
            dice = dice_score(logits, mask)
        print(f"epoch {epoch + 1}: train loss {loss.item():.4f} val loss {val_loss:.4f} val dice {dice:.3f}")


if __name__ == "__main__":
    main()
