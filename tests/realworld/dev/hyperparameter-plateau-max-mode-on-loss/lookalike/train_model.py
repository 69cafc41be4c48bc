import torch
from sklearn.metrics import roc_auc_score
from torch.optim.lr_scheduler import ReduceLROnPlateau


class Trainer:
    def __init__(self, net, optimizer, valid_loader, device="cuda"):
        self.net = net
        self.optimizer = optimizer
        self.valid_loader = valid_loader
        self.device = device
        self.scheduler = ReduceLROnPlateau(optimizer, mode="max", patience=5, factor=0.5)

    @torch.no_grad()
    def valid_auroc(self):
        self.net.eval()
        scores, labels = [], []
        for x, y in self.valid_loader:
            scores.append(torch.sigmoid(self.net(x.to(self.device))).cpu())
            labels.append(y)
        return roc_auc_score(torch.cat(labels).numpy(), torch.cat(scores).numpy(), average="micro")

    def end_of_epoch(self):
        auroc = self.valid_auroc()
        self.scheduler.step(auroc)
        return auroc
