import torch
import torch.nn.functional as F
import lightning as L
from torchvision.models import resnet18


class LitClassifier(L.LightningModule):
    def __init__(self, num_classes=10, max_lr=1e-1, epochs=30):
        super().__init__()
        self.save_hyperparameters()
        self.backbone = resnet18(num_classes=num_classes)

    def forward(self, x):
        return self.backbone(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train/loss", loss)
        return loss

    def configure_optimizers(self):
        hp = self.hparams
        opt = torch.optim.SGD(self.parameters(), lr=hp.max_lr, momentum=0.9)
        # one scheduler step per epoch, so the cycle is measured in epochs
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=hp.max_lr, epochs=hp.epochs, steps_per_epoch=1)
        return [opt], [sched]
