import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def fit(self, x, y, task, steps, batch_size=64, log_every=100):
        self.model.train()
        for step in range(1, steps + 1):
            idx = torch.randint(0, len(x), (batch_size,))
            loss = F.cross_entropy(self.model(x[idx], task), y[idx])
            # keep the .grad tensors allocated between steps
            self.optimizer.zero_grad(set_to_none=False)
            loss.backward()
            self.optimizer.step()
            if step % log_every == 0:
                print(f"  task {task} step {step:4d} loss {loss.item():.4f}")

    @torch.no_grad()
    def accuracy(self, x, y, task):
        self.model.eval()
        acc = (self.model(x, task).argmax(-1) == y).float().mean().item()
        self.model.train()
        return acc
