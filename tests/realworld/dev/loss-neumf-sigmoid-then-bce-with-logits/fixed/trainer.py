import torch
import torch.nn as nn


class PointwiseTrainer:
    def __init__(self, recommender, lr=1e-3, reg=0.0):
        self.recommender = recommender
        self.objective = nn.BCEWithLogitsLoss()
        self.optimizer = torch.optim.Adam(recommender.parameters(), lr=lr, weight_decay=reg)

    def step(self, users, items, labels):
        self.recommender.train()
        preds = self.recommender(users, items)
        loss = self.objective(preds, labels.float())
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, loader, epochs=20):
        for epoch in range(epochs):
            running = 0.0
            for users, items, labels in loader:
                running += self.step(users, items, labels)
            print(f"epoch {epoch} loss {running / max(len(loader), 1):.4f}")
