import logging

import torch
import torch.nn as nn
from torch.optim.lr_scheduler import ReduceLROnPlateau

logger = logging.getLogger(__name__)


class TrainModel:
    def __init__(self, model, train_loader, valid_loader, lr=0.08, max_steps=80000, report_every=1000,
                 device="cuda"):
        self.model = model.to(device)
        self.train_loader = train_loader
        self.valid_loader = valid_loader
        self.criterion = nn.BCEWithLogitsLoss()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr, momentum=0.9, weight_decay=1e-6)
        self.scheduler = ReduceLROnPlateau(self.optimizer, mode="max", patience=16, factor=0.8, min_lr=1e-6)
        self.max_steps = max_steps
        self.report_every = report_every
        self.device = device

    def _train_step(self, x, y):
        self.model.train()
        self.optimizer.zero_grad()
        loss = self.criterion(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        total, n = 0.0, 0
        for x, y in self.valid_loader:
            x, y = x.to(self.device), y.to(self.device)
            total += self.criterion(self.model(x), y).item() * x.size(0)
            n += x.size(0)
        return total / n

    def train_and_validate(self):
        step = 0
        while step < self.max_steps:
            for x, y in self.train_loader:
                x, y = x.to(self.device), y.to(self.device)
                train_loss = self._train_step(x, y)
                step += 1
                if step % self.report_every == 0:
                    valid_loss = self.validate()
                    self.scheduler.step(valid_loss)
                    logger.info("step %d train %.4f valid %.4f", step, train_loss, valid_loss)
                if step >= self.max_steps:
                    break
