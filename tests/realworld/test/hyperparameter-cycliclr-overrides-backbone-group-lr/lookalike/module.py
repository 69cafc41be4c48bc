import torch
import torch.nn.functional as F
import lightning as L
from torchvision.models import resnet18


class Classifier(L.LightningModule):
    def __init__(self, num_classes=10):
        super().__init__()
        self.backbone = resnet18(num_classes=num_classes)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.backbone(x), y)
        self.log("loss", loss)
        return loss

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=1e-3, momentum=0.9)
        sched = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=1e-4, max_lr=1e-2, step_size_up=2000)
        return [opt], [dict(scheduler=sched, interval="step")]
