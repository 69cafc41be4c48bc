import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from data import MaskedFeatureDataset


def evaluate(net, ds):
    with torch.no_grad():
        return F.mse_loss(net(ds.x), ds.y).item()


def main(epochs=10):
    torch.manual_seed(0)
    train_set = MaskedFeatureDataset(seed=0)
    clean_val = MaskedFeatureDataset(n=512, seed=0)
    clean_val.x = torch.randn(512, 32, generator=torch.Generator().manual_seed(7))
    clean_val.y = clean_val.x @ train_set.w
    loader = DataLoader(train_set, batch_size=128, shuffle=True, num_workers=2, persistent_workers=True)
    net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    for epoch in range(epochs):
        train_set.set_epoch(epoch)
        for x, y in loader:
            loss = F.mse_loss(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} mask_prob {train_set.mask_prob:.2f} train {loss.item():.3f} "
              f"clean val {evaluate(net, clean_val):.3f}")


if __name__ == "__main__":
    main()
