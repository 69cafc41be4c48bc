import torch
import torch.nn as nn
import torch.nn.functional as F
import lightning as L
from torchvision.models import resnet18


class LitClassifier(L.LightningModule):
    def __init__(self, num_classes=10, max_lr=1e-1, epochs=30, steps_per_epoch=390):
        super().__init__()
        self.save_hyperparameters()
        self.net = resnet18(num_classes=num_classes)

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        self.log("train/loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        acc = (logits.argmax(1) == y).float().mean()
        self.log("val/acc", acc, prog_bar=True)

    def configure_optimizers(self):
        hp = self.hparams
        opt = torch.optim.SGD(self.parameters(), lr=hp.max_lr, momentum=0.9, weight_decay=5e-4)
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=hp.max_lr, epochs=hp.epochs, steps_per_epoch=hp.steps_per_epoch
        )
        return [opt], [{"scheduler": sched, "interval": "step"}]
