import pytorch_lightning as pl
import torch
import torchvision
from lightly.models.modules import MSNProjectionHead
from lightly.transforms import MSNTransform
from lightly.data import LightlyDataset

from msn_losses import PriorMatchingMSNLoss


class PMSN(pl.LightningModule):
    def __init__(self, n_prototypes=1024, lr=1e-3):
        super().__init__()
        vit = torchvision.models.vit_b_32()
        vit.heads = torch.nn.Identity()
        self.backbone = vit
        self.projection_head = MSNProjectionHead(768, 2048, 256)
        self.prototypes = torch.nn.Linear(256, n_prototypes, bias=False).weight
        self.criterion = PriorMatchingMSNLoss()
        self.lr = lr

    def training_step(self, batch, batch_idx):
        views = batch[0]
        target_view, anchor_views = views[0], torch.cat(views[1:], dim=0)
        with torch.no_grad():
            targets = self.projection_head(self.backbone(target_view))
        anchors = self.projection_head(self.backbone(anchor_views))
        loss = self.criterion(anchors, targets, self.prototypes)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self):
        params = [
            {"params": self.backbone.parameters()},
            {"params": self.projection_head.parameters()},
            {"params": [self.prototypes], "weight_decay": 0.0},
        ]
        return torch.optim.AdamW(params, lr=self.lr, weight_decay=0.05)


if __name__ == "__main__":
    dataset = LightlyDataset("data/unlabeled", transform=MSNTransform())
    loader = torch.utils.data.DataLoader(dataset, batch_size=64, shuffle=True, drop_last=True, num_workers=8)
    pl.Trainer(max_epochs=100, accelerator="auto", precision="16-mixed").fit(PMSN(), loader)
