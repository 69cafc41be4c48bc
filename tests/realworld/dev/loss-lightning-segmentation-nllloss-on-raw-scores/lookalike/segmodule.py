import pytorch_lightning as pl
import torch
from torch import nn

from fcn import TinyFCN


class SegmentationModule(pl.LightningModule):
    def __init__(self, num_classes=6, lr=1e-3, weight_decay=1e-4, ignore_index=255):
        super().__init__()
        self.save_hyperparameters()
        self.net = TinyFCN(num_classes=num_classes)
        self.criterion = nn.NLLLoss(ignore_index=ignore_index)

    def forward(self, images):
        return self.net(images)

    def _shared_step(self, batch):
        images, masks = batch
        scores = self(images)
        loss = self.criterion(scores, masks)
        return loss, scores, masks

    def training_step(self, batch, batch_idx):
        loss, _, _ = self._shared_step(batch)
        self.log("train/loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        loss, scores, masks = self._shared_step(batch)
        preds = scores.argmax(dim=1)
        valid = masks != self.hparams.ignore_index
        pixel_acc = (preds[valid] == masks[valid]).float().mean()
        self.log("val/loss", loss, prog_bar=True)
        self.log("val/pixel_acc", pixel_acc, prog_bar=True)

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr,
                                      weight_decay=self.hparams.weight_decay)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=self.trainer.max_epochs)
        return {"optimizer": optimizer, "lr_scheduler": scheduler}
