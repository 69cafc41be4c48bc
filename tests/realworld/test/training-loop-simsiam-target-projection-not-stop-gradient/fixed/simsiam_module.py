"""SimSiam pretraining of a ResNet-18 on unlabeled histology tiles with Lightning."""
import lightning as L
import torch
import torchvision
from torch import nn

from heads import PredictionMLP, ProjectionMLP
from losses import NegativeCosineSimilarity


class SimSiam(L.LightningModule):
    def __init__(self, lr=0.05, momentum=0.9, weight_decay=1e-4, max_epochs=200, batch_size=256):
        super().__init__()
        self.save_hyperparameters()
        resnet = torchvision.models.resnet18()
        self.backbone = nn.Sequential(*list(resnet.children())[:-1])
        self.projection_head = ProjectionMLP(512, 2048, 2048)
        self.prediction_head = PredictionMLP(2048, 512)
        self.criterion = NegativeCosineSimilarity()

    def forward(self, x):
        f = self.backbone(x).flatten(start_dim=1)
        z = self.projection_head(f)
        p = self.prediction_head(z)
        return z, p

    def training_step(self, batch, batch_idx):
        (x0, x1), _ = batch
        z0, p0 = self(x0)
        z1, p1 = self(x1)
        loss = 0.5 * (self.criterion(p0, z1) + self.criterion(p1, z0))
        with torch.no_grad():
            z_std = nn.functional.normalize(z0, dim=1).std(dim=0).mean()
        self.log_dict({"train/loss": loss, "train/z_std": z_std}, prog_bar=True)
        return loss

    def configure_optimizers(self):
        lr = self.hparams.lr * self.hparams.batch_size / 256
        optimizer = torch.optim.SGD(
            self.parameters(), lr=lr, momentum=self.hparams.momentum, weight_decay=self.hparams.weight_decay
        )
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=self.hparams.max_epochs)
        return [optimizer], [scheduler]
