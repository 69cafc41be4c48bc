import torch
import torch.nn as nn
import torch.nn.functional as F


class LayoutGenerator(nn.Module):
    """Renders a coarse image from box layouts and compares with the real image."""

    def __init__(self, res=64):
        super().__init__()
        self.res = res
        self.net = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 3, 3, padding=1))

    def rasterise(self, boxes):
        grid = torch.linspace(0, 1, self.res, device=boxes.device)
        ys, xs = torch.meshgrid(grid, grid, indexing="ij")
        canvas = torch.zeros(self.res, self.res, device=boxes.device)
        for x1, y1, x2, y2 in boxes:
            canvas = torch.maximum(canvas, ((xs >= x1) & (xs <= x2) & (ys >= y1) & (ys <= y2)).float())
        return canvas[None]

    def reconstruction_loss(self, images, boxes):
        layouts = torch.stack([self.rasterise(b) for b in boxes])
        target = F.interpolate(images, size=self.res, mode="bilinear", align_corners=False)
        return F.l1_loss(self.net(layouts), target)
