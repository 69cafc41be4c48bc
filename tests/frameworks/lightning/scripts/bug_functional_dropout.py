"""Bug: F.dropout in forward without training=self.training stays on during validation (noisy val metrics)."""
import torch
import torch.nn.functional as F
from torch import nn

import lightning as L
from toy_data import loaders, trainer


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 64)
        self.fc2 = nn.Linear(64, 4)

    def forward(self, x):
        h = F.dropout(F.relu(self.fc1(x)), p=0.3)
        return self.fc2(h)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.log("val_acc", (logits.argmax(1) == y).float().mean())

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=3e-3)


if __name__ == "__main__":
    L.seed_everything(0)
    train, val = loaders()
    trainer().fit(Classifier(), train, val)
