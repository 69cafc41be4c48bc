"""Bug: configure_optimizers hands only the encoder's parameters to the optimizer; the new head never trains."""
import torch
import torch.nn.functional as F
from torch import nn

import lightning as L
from toy_data import loaders, trainer


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(16, 64), nn.ReLU())
        self.head = nn.Linear(64, 4)

    def forward(self, x):
        return self.head(self.encoder(x))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", F.cross_entropy(self(x), y))

    def configure_optimizers(self):
        return torch.optim.Adam(self.encoder.parameters(), lr=3e-3)


if __name__ == "__main__":
    L.seed_everything(0)
    train, val = loaders()
    trainer().fit(Classifier(), train, val)
