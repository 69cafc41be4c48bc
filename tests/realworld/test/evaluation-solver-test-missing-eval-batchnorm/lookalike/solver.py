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

    def test(self, task_model, loader, mc_samples=8):
        task_model.eval()
        for m in task_model.modules():
            if isinstance(m, nn.Dropout):
                m.train()
        total, correct = 0, 0
        for x, y in loader:
            with torch.no_grad():
                probs = torch.stack([task_model(x).softmax(-1) for _ in range(mc_samples)]).mean(0)
                preds = probs.argmax(dim=1)
            correct += (preds == y).sum().item()
            total += y.size(0)
        return 100.0 * correct / total
