import pytorch_lightning as pl
import torch

from losses import nt_xent_loss
from model import Projection, cifar_resnet18


class SimCLR(pl.LightningModule):
    def __init__(self, batch_size=256, temperature=0.5, learning_rate=1e-3, weight_decay=1e-6, max_epochs=100):
        super().__init__()
        self.save_hyperparameters()
        self.encoder = cifar_resnet18()
        self.projection = Projection(input_dim=512, hidden_dim=512, output_dim=128)

    def forward(self, x):
        return self.encoder(x)

    def shared_step(self, batch):
        (img1, img2, _), _ = batch
        z1 = self.projection(self(img1))
        z2 = self.projection(self(img2))
        return nt_xent_loss(z1, z2, self.hparams.temperature)

    def training_step(self, batch, batch_idx):
        loss = self.shared_step(batch)
        self.log("train_loss", loss, on_step=True, on_epoch=False)
        return loss

    def validation_step(self, batch, batch_idx):
        loss = self.shared_step(batch)
        self.log("val_loss", loss, on_step=False, on_epoch=True, sync_dist=True)

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(
            self.parameters(), lr=self.hparams.learning_rate, weight_decay=self.hparams.weight_decay
        )
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=self.hparams.max_epochs)
        return [optimizer], [scheduler]
