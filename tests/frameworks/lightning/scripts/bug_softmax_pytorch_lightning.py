"""The softmax-before-cross_entropy bug written against the older ``pytorch_lightning`` package name."""
import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from torch import nn

from toy_data import loaders, trainer


class Classifier(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))

    def forward(self, x):
        return F.softmax(self.net(x), dim=1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", F.cross_entropy(self.net(x), y))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=3e-3)


if __name__ == "__main__":
    pl.seed_everything(0)
    train, val = loaders()
    trainer("pytorch_lightning").fit(Classifier(), train, val)
