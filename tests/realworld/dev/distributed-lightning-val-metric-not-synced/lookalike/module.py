import lightning.pytorch as pl
import torch
import torch.nn.functional as F
import torchvision
from torchmetrics.classification import MulticlassAccuracy


class LitClassifier(pl.LightningModule):
    def __init__(self, num_classes=100, lr=0.1):
        super().__init__()
        self.save_hyperparameters()
        self.net = torchvision.models.resnet34(num_classes=num_classes)
        self.val_acc = MulticlassAccuracy(num_classes=num_classes, average="micro")

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.val_acc.update(logits, y)
        self.log("val_loss", F.cross_entropy(logits, y), on_epoch=True, sync_dist=True)
        self.log("val_acc", self.val_acc, on_epoch=True, prog_bar=True)

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=self.hparams.lr, momentum=0.9, weight_decay=5e-4)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.trainer.max_epochs)
        return [opt], [sched]
