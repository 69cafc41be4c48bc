"""Bug: a OneCycleLR sized in optimizer steps is returned without "interval": "step", so Lightning
steps it once per epoch and the run stays in the first percent of the warm-up (as in
Lightning-AI/pytorch-lightning#3869)."""
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
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-2)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=self.trainer.estimated_stepping_batches)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "name": "lr"}}


if __name__ == "__main__":
    L.seed_everything(0)
    train, _ = loaders()
    trainer(val_check_interval=None).fit(Classifier(), train)
