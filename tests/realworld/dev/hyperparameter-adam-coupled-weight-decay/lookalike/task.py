import torch
import torch.nn.functional as F
import lightning as L
from torchvision.models import resnet50


class ImageClassifier(L.LightningModule):
    def __init__(self, num_classes=100, lr=0.1, weight_decay=1e-4, epochs=90):
        super().__init__()
        self.save_hyperparameters()
        self.backbone = resnet50(num_classes=num_classes)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.backbone(x), y)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        hp = self.hparams
        opt = torch.optim.SGD(self.parameters(), lr=hp.lr, momentum=0.9, weight_decay=hp.weight_decay)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=hp.epochs)
        return [opt], [sched]
