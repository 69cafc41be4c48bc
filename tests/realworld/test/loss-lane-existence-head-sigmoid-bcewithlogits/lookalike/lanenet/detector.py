import torch
import torch.nn as nn
import torch.nn.functional as F

from lanenet.exist_head import ExistHead
from lanenet.seg_head import SegHead


class LaneSeg(nn.Module):
    def __init__(self, backbone, cfg):
        super().__init__()
        self.backbone = backbone
        self.heads = SegHead(cfg["feat_channels"], cfg["num_lanes"])
        self.exist = ExistHead(cfg["feat_channels"], cfg["num_lanes"], cfg["feat_hw"])
        weights = torch.ones(cfg["num_lanes"] + 1)
        weights[0] = cfg["bg_weight"]
        self.register_buffer("seg_weights", weights)
        self.exist_criterion = nn.BCELoss()
        self.cfg = cfg

    def forward(self, img):
        feats = self.backbone(img)
        out = self.heads(feats, img.shape[-2:])
        out.update(self.exist(feats))
        return out

    def loss(self, output, batch):
        seg_loss = F.cross_entropy(
            output["seg"], batch["mask"].long(), weight=self.seg_weights, ignore_index=255
        )
        exist_loss = self.exist_criterion(output["exist"], batch["lane_exist"].float())
        total = seg_loss * self.cfg["seg_loss_weight"] + exist_loss * self.cfg["exist_loss_weight"]
        return {"loss": total, "seg_loss": seg_loss.detach(), "exist_loss": exist_loss.detach()}

    @torch.no_grad()
    def get_lanes(self, output, thr=0.5):
        probs = F.softmax(output["seg"], dim=1)
        present = output["exist"] > thr
        return probs, present
