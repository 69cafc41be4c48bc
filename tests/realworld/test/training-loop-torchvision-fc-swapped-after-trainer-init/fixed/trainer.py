import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, lr=1e-3, weight_decay=1e-4, device="cuda"):
        self.model = model.to(device)
        self.device = device
        self.criterion = nn.CrossEntropyLoss()
        trainable = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.Adam(trainable, lr=lr, weight_decay=weight_decay)

    def train_epoch(self, loader):
        self.model.train()
        total = 0.0
        for images, labels in loader:
            images, labels = images.to(self.device), labels.to(self.device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(images), labels)
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total / len(loader)
