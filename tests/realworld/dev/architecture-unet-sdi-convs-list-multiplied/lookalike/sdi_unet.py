import torch
import torch.nn as nn
import torch.nn.functional as F
import timm


class SDI(nn.Module):
    """Semantics and detail infusion: fuse every encoder level into one skip feature."""

    def __init__(self, channel, n_levels=4):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(channel, channel, kernel_size=3, stride=1, padding=1) for _ in range(n_levels)])
        self.gates = nn.ModuleList([nn.Identity()] * n_levels)

    def forward(self, feats, anchor):
        target = anchor.shape[-2:]
        out = torch.ones_like(anchor)
        for conv, gate, f in zip(self.convs, self.gates, feats):
            if f.shape[-2:] != target:
                f = F.interpolate(f, size=target, mode="bilinear", align_corners=False)
            out = out * gate(conv(f))
        return out


class UNetV2(nn.Module):
    def __init__(self, n_classes=1, channel=32, backbone="pvt_v2_b2", pretrained=True):
        super().__init__()
        self.encoder = timm.create_model(backbone, pretrained=pretrained, features_only=True, out_indices=(0, 1, 2, 3))
        dims = self.encoder.feature_info.channels()
        self.reduce = nn.ModuleList([nn.Conv2d(d, channel, 1) for d in dims])
        self.sdi = nn.ModuleList([SDI(channel) for _ in dims])
        self.decoder = nn.ModuleList([nn.ConvTranspose2d(channel, channel, 4, 2, 1) for _ in dims[:-1]])
        self.seg_outs = nn.ModuleList([nn.Conv2d(channel, n_classes, 1) for _ in dims[:-1]])

    def forward(self, x):
        feats = [r(f) for r, f in zip(self.reduce, self.encoder(x))]
        fused = [sdi(feats, f) for sdi, f in zip(self.sdi, feats)]
        y = fused[-1]
        outs = []
        for i in range(len(fused) - 2, -1, -1):
            y = self.decoder[i](y) + fused[i]
            outs.append(self.seg_outs[i](y))
        return [F.interpolate(o, size=x.shape[-2:], mode="bilinear", align_corners=False) for o in outs]
