"""Source-free adaptation of a segmentation UNet to a new scanner domain.

The classifier of the source model holds the class prototypes; it is kept
fixed while the encoder/decoder are adapted with prototype-anchored
pseudo-labels and a feature contrast term.
"""
import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from model import UNet


def target_loader(n=64, size=64, batch_size=8):
    images = torch.randn(n, 1, size, size)
    return DataLoader(TensorDataset(images), batch_size=batch_size, shuffle=True)


class PrototypeAdapter:
    def __init__(self, ckpt_path, n_classes=5, lr=1e-4, tau=0.1, conf_thresh=0.8, device="cpu"):
        self.device = device
        self.model = UNet(n_classes=n_classes).to(device)
        if ckpt_path:
            state = torch.load(ckpt_path, map_location=device)
            self.model.load_state_dict(state["model"])
        self.tau = tau
        self.conf_thresh = conf_thresh

        # keep the source prototypes (classifier weights) frozen during adaptation
        for param in self.model.outc.parameters():
            param.requires_grad = False

        trainable = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.Adam(trainable, lr=lr, betas=(0.9, 0.99))

    def prototypes(self):
        w = self.model.outc.conv.weight.flatten(1)  # (C, D)
        return F.normalize(w, dim=1)

    def step(self, images):
        self.model.train()
        logits, feat = self.model(images, return_feat=True)
        prob = logits.softmax(dim=1)
        conf, pseudo = prob.max(dim=1)
        mask = conf > self.conf_thresh

        seg_loss = (F.cross_entropy(logits, pseudo, reduction="none") * mask).sum() / mask.sum().clamp(min=1)

        feat_n = F.normalize(feat, dim=1).permute(0, 2, 3, 1).reshape(-1, feat.size(1))
        sim = feat_n @ self.prototypes().t() / self.tau
        proto_loss = F.cross_entropy(sim, pseudo.reshape(-1), reduction="none")
        proto_loss = (proto_loss * mask.reshape(-1)).sum() / mask.sum().clamp(min=1)

        loss = seg_loss + 0.5 * proto_loss
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source_ckpt", default="")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=1e-4)
    args = parser.parse_args()

    adapter = PrototypeAdapter(args.source_ckpt, lr=args.lr)
    loader = target_loader()
    for epoch in range(args.epochs):
        losses = [adapter.step(images) for (images,) in loader]
        print(f"epoch {epoch} adapt loss {sum(losses) / len(losses):.4f}")
    torch.save({"model": adapter.model.state_dict()}, "adapted.pth")


if __name__ == "__main__":
    main()
