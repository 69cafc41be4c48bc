import torch
import torch.nn as nn


class Solver:
    def __init__(self, args):
        self.args = args
        self.ce = nn.CrossEntropyLoss()

    def train(self, task_model, loader, optimizer):
        task_model.train()
        for it in range(self.args["epochs"]):
            for x, y in loader:
                loss = self.ce(task_model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            print(f"epoch {it} loss {loss.item():.4f}")
        return task_model

    def test(self, task_model, loader):
        total, correct = 0, 0
        for x, y in loader:
            with torch.no_grad():
                preds = task_model(x).argmax(dim=1)
            correct += (preds == y).sum().item()
            total += y.size(0)
        return 100.0 * correct / total
