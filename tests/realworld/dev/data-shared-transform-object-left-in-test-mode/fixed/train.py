import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F

from datamodule import BirdDataModule


class BirdClassifier(L.LightningModule):
    def __init__(self, n_classes=21, lr=5e-4):
        super().__init__()
        self.save_hyperparameters()
        self.frontend = nn.Sequential(nn.Conv1d(1, 32, 400, stride=160), nn.ReLU(), nn.Conv1d(32, 64, 5, stride=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.classifier = nn.Linear(64, n_classes)

    def forward(self, wav):
        return self.classifier(self.frontend(wav.unsqueeze(1)).squeeze(-1))

    def training_step(self, batch, _):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, _):
        x, y = batch
        self.log("val_acc", (self(x).argmax(1) == y).float().mean(), prog_bar=True)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)


if __name__ == "__main__":
    L.seed_everything(1)
    L.Trainer(max_epochs=30, accelerator="auto").fit(BirdClassifier(), datamodule=BirdDataModule("data/birdset_hsn"))
