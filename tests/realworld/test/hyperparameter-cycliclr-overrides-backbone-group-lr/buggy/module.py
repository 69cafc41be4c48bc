import torch
import torch.nn as nn
import torch.nn.functional as F
import lightning as L
from torchvision.models import resnet50, ResNet50_Weights


class Embedder(nn.Module):
    def __init__(self, dim=512):
        super().__init__()
        trunk = resnet50(weights=ResNet50_Weights.IMAGENET1K_V2)
        self.net = nn.Sequential(*list(trunk.children())[:-2])
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(2048, dim)

    def forward(self, x):
        return self.fc(self.pool(self.net(x)).flatten(1))


class FineTuner(L.LightningModule):
    def __init__(self, num_classes, lr=1e-3):
        super().__init__()
        self.lr = lr
        self.net = Embedder()
        self.head = nn.Linear(512, num_classes)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.head(self.net(x)), y)
        self.log("loss", loss)
        return loss

    def configure_optimizers(self):
        opt = torch.optim.SGD([
            dict(params=self.net.net.parameters(), lr=0.1 * self.lr),
            dict(params=[*self.net.pool.parameters(), *self.net.fc.parameters(), *self.head.parameters()]),
        ], lr=self.lr, momentum=0.9)
        sched = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=1e-5, max_lr=1e-3, step_size_up=2000,
                                                  step_size_down=1000, mode="triangular2")
        return [opt], [dict(scheduler=sched, interval="step")]
