"""Clean: gradient accumulation over 2 batches, gradient clipping and a per-step OneCycleLR, all Lightning's."""
import torch
import torch.nn.functional as F
from torch import nn

import lightning as L
from toy_data import loaders, trainer


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", F.cross_entropy(self(x), y))

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=0.05, momentum=0.9)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=self.trainer.estimated_stepping_batches)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}


if __name__ == "__main__":
    L.seed_everything(0)
    train, val = loaders(batch_size=16)
    trainer(accumulate_grad_batches=2, gradient_clip_val=1.0, max_steps=30).fit(Classifier(), train, val)
