import math
import torch
import torch.nn as nn
import torch.nn.functional as F
import pytorch_lightning as pl


class Conv1DClassifier(pl.LightningModule):
    def __init__(self, num_classes, out_channels=256, kernel=64, stride=64, lr=1e-3):
        super().__init__()
        self.save_hyperparameters()
        n_layers = int(math.log2(out_channels))
        self.conv_layers = nn.ModuleList([
            nn.Conv1d(2 ** i, 2 ** (i + 1), kernel_size=kernel, stride=stride, padding=kernel // 2)
            for i in range(n_layers)
        ])
        self.fc1 = nn.Linear(out_channels, 128)
        self.fc2 = nn.Linear(128, 64)
        self.fc3 = nn.Linear(64, num_classes)

    def forward(self, x):
        for conv in self.conv_layers:
            x = F.relu(conv(x))
        x = x.mean(dim=-1)
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))

    def training_step(self, batch, batch_idx):
        wav, label = batch
        loss = F.cross_entropy(self(wav), label)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        wav, label = batch
        logits = self(wav)
        self.log("val_acc", (logits.argmax(-1) == label).float().mean(), prog_bar=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
