"""Bug: forward() returns probabilities (handy for predict), training_step feeds them to cross_entropy.

validation_step scores the raw logits of self.net, so the validation and sanity-check calls look
healthy; only the training calls get a softmax twice (cross_entropy applies log-softmax itself).
"""
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
        return torch.softmax(self.net(x), dim=-1)

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
    L.seed_everything(0)
    train, val = loaders()
    trainer().fit(Classifier(), train, val)
