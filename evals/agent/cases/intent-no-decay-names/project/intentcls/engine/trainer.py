import torch

from ..metrics import ConfusionMatrix


@torch.no_grad()
def evaluate(model, loader, n_classes: int) -> dict:
    model.eval()
    cm = ConfusionMatrix(n_classes)
    for batch in loader:
        cm.update(model(batch["input_ids"], batch["attention_mask"]), batch["labels"])
    model.train()
    return cm.compute()


class Trainer:
    def __init__(self, model, optimizer, loss_fn, n_classes, hooks=(), max_grad_norm=1.0):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.n_classes = n_classes
        self.hooks = list(hooks)
        self.max_grad_norm = max_grad_norm
        self.step = 0
        self.epoch = 0
        self.last_loss = float("nan")

    def training_step(self, batch) -> float:
        logits = self.model(batch["input_ids"], batch["attention_mask"])
        loss = self.loss_fn(logits, batch["labels"])
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if self.max_grad_norm:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm)
        self.optimizer.step()
        return loss.item()

    def fit(self, train_loader, val_loader, epochs: int) -> dict:
        self.model.train()
        metrics = {}
        for self.epoch in range(1, epochs + 1):
            running, seen = 0.0, 0
            for batch in train_loader:
                self.last_loss = self.training_step(batch)
                self.step += 1
                running += self.last_loss
                seen += 1
                for hook in self.hooks:
                    hook.after_step(self)
            val = evaluate(self.model, val_loader, self.n_classes)
            metrics = {"train_loss": running / max(seen, 1), **{f"val_{k}": v for k, v in val.items()}}
            for hook in self.hooks:
                hook.after_epoch(self, metrics)
        return metrics
