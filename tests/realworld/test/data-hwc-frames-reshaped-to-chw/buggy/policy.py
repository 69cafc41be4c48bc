import torch
import torch.nn as nn
import torchvision


class ImageEncoder(nn.Module):
    def __init__(self, out_dim=256):
        super().__init__()
        backbone = torchvision.models.resnet18(weights="IMAGENET1K_V1")
        backbone.fc = nn.Identity()
        self.backbone = backbone
        self.proj = nn.Linear(512, out_dim)

    def forward(self, img):
        return self.proj(self.backbone(img))


class DensePolicy(nn.Module):
    def __init__(self, action_dim=7, horizon=16):
        super().__init__()
        self.top_enc = ImageEncoder()
        self.hand_enc = ImageEncoder()
        self.head = nn.Sequential(nn.Linear(512 + 8, 512), nn.ReLU(), nn.Linear(512, action_dim * horizon))
        self.action_dim, self.horizon = action_dim, horizon
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def _prep(self, img):
        b, h, w, c = img.shape
        img = img.reshape(b, c, h, w).float() / 255.0
        return (img - self.mean) / self.std

    def forward(self, img_top, img_hand, qpos):
        f = torch.cat([self.top_enc(self._prep(img_top)), self.hand_enc(self._prep(img_hand)), qpos], dim=-1)
        return self.head(f).view(-1, self.horizon, self.action_dim)
