"""BYOL pretraining of a ResNet-18 on unlabeled histology tiles with Lightning."""
import copy
import math

import lightning as L
import torch
import torchvision
from torch import nn

from heads import PredictionMLP, ProjectionMLP
from losses import NegativeCosineSimilarity


class BYOL(L.LightningModule):
    def __init__(self, lr=0.05, momentum=0.9, weight_decay=1e-4, max_epochs=200, batch_size=256, tau_base=0.99):
        super().__init__()
        self.save_hyperparameters()
        resnet = torchvision.models.resnet18()
        self.backbone = nn.Sequential(*list(resnet.children())[:-1])
        self.projection_head = ProjectionMLP(512, 2048, 256)
        self.prediction_head = PredictionMLP(256, 2048)
        self.backbone_momentum = copy.deepcopy(self.backbone)
        self.projection_head_momentum = copy.deepcopy(self.projection_head)
        for p in list(self.backbone_momentum.parameters()) + list(self.projection_head_momentum.parameters()):
            p.requires_grad = False
        self.criterion = NegativeCosineSimilarity()

    def forward(self, x):
        f = self.backbone(x).flatten(start_dim=1)
        return self.prediction_head(self.projection_head(f))

    @torch.no_grad()
    def forward_momentum(self, x):
        f = self.backbone_momentum(x).flatten(start_dim=1)
        return self.projection_head_momentum(f)

    @torch.no_grad()
    def update_momentum(self, tau):
        pairs = [(self.backbone, self.backbone_momentum), (self.projection_head, self.projection_head_momentum)]
        for online, target in pairs:
            for po, pt in zip(online.parameters(), target.parameters()):
                pt.mul_(tau).add_(po.detach(), alpha=1 - tau)

    def training_step(self, batch, batch_idx):
        total = self.trainer.estimated_stepping_batches
        tau = 1 - (1 - self.hparams.tau_base) * (math.cos(math.pi * self.global_step / total) + 1) / 2
        self.update_momentum(tau)
        (x0, x1), _ = batch
        p0, p1 = self(x0), self(x1)
        z0, z1 = self.forward_momentum(x0), self.forward_momentum(x1)
        loss = 0.5 * (self.criterion(p0, z1) + self.criterion(p1, z0))
        self.log("train/loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self):
        params = list(self.backbone.parameters()) + list(self.projection_head.parameters()) + list(self.prediction_head.parameters())
        lr = self.hparams.lr * self.hparams.batch_size / 256
        optimizer = torch.optim.SGD(params, lr=lr, momentum=self.hparams.momentum, weight_decay=self.hparams.weight_decay)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=self.hparams.max_epochs)
        return [optimizer], [scheduler]
