"""Source-count encoder: a small CNN that predicts how many sources an image holds."""
import lightning as L
import torch
import torch.nn.functional as F
from torch import nn


class CountEncoder(L.LightningModule):
    def __init__(self, max_sources=4, lr=1e-3):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
            nn.Linear(32, max_sources + 1),
        )

    def forward(self, images):
        return self.net(images)

    def _step(self, batch, name):
        logits = self(batch["images"])
        loss = F.cross_entropy(logits, batch["n_sources"])
        acc = (logits.argmax(1) == batch["n_sources"]).float().mean()
        self.log(f"{name}/loss", loss, prog_bar=True)
        self.log(f"{name}/count_acc", acc)
        return loss

    def training_step(self, batch, batch_idx):
        return self._step(batch, "train")

    def validation_step(self, batch, batch_idx):
        self._step(batch, "val")

    def test_step(self, batch, batch_idx):
        self._step(batch, "test")

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
