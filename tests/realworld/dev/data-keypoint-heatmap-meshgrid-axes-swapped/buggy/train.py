"""Train a heatmap-regression keypoint detector for cloth-folding grasp points."""
import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision.models import resnet18, ResNet18_Weights

from dataset import KeypointDataset
from heatmap import heatmap_peaks

CHANNELS = ["corner", "flap_corner"]


class HeatmapNet(nn.Module):
    def __init__(self, n_channels):
        super().__init__()
        backbone = resnet18(weights=ResNet18_Weights.IMAGENET1K_V1)
        self.encoder = nn.Sequential(*list(backbone.children())[:-2])
        layers, ch = [], 512
        for out_ch in (256, 128, 64, 32, 32):
            layers += [nn.ConvTranspose2d(ch, out_ch, 4, stride=2, padding=1), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True)]
            ch = out_ch
        self.decoder = nn.Sequential(*layers)
        self.head = nn.Conv2d(ch, n_channels, 1)

    def forward(self, x):
        return torch.sigmoid(self.head(self.decoder(self.encoder(x))))


def keypoint_error(pred_maps, target_maps):
    errors = []
    for p, t in zip(pred_maps.flatten(0, 1), target_maps.flatten(0, 1)):
        pk, tk = heatmap_peaks(p), heatmap_peaks(t)
        if len(pk) and len(tk):
            errors.append(torch.cdist(tk.float(), pk.float()).min(dim=1).values.mean())
    return torch.stack(errors).mean().item() if errors else float("nan")


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_ds = KeypointDataset("data/towels/train.json", CHANNELS)
    val_ds = KeypointDataset("data/towels/val.json", CHANNELS)
    train_dl = DataLoader(train_ds, batch_size=16, shuffle=True, num_workers=4)
    val_dl = DataLoader(val_ds, batch_size=16, num_workers=4)

    model = HeatmapNet(len(CHANNELS)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    criterion = nn.BCELoss()

    for epoch in range(30):
        model.train()
        for images, targets in train_dl:
            images, targets = images.to(device), targets.to(device)
            loss = criterion(model(images), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

        model.eval()
        with torch.no_grad():
            errs = [keypoint_error(model(x.to(device)).cpu(), y) for x, y in val_dl]
        print(f"epoch {epoch}: loss {loss.item():.4f} val keypoint error {sum(errs) / len(errs):.2f}px")
    torch.save(model.state_dict(), "heatmapnet.pt")


if __name__ == "__main__":
    main()
