import torch

from ..metrics import ForecastErrors


@torch.no_grad()
def evaluate(model, loader) -> dict:
    was_training = model.training
    model.eval()
    errors = ForecastErrors()
    for history, future in loader:
        errors.update(model(history), future)
    model.train(was_training)
    return errors.compute()


class Trainer:
    def __init__(self, model, optimizer, loss_fn, callbacks=(), grad_clip=None, log_every=50, logger=None):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.callbacks = list(callbacks)
        self.grad_clip = grad_clip
        self.log_every = log_every
        self.logger = logger
        self.stop = False
        self.step = 0

    def train_epoch(self, loader) -> float:
        self.model.train()
        total, batches = 0.0, 0
        for history, future in loader:
            pred = self.model(history)
            loss = self.loss_fn(pred, future)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if self.grad_clip:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
            self.step += 1
            total += loss.item()
            batches += 1
            if self.logger and self.log_every and self.step % self.log_every == 0:
                self.logger.info("step %d  loss %.4f", self.step, loss.item())
        return total / max(batches, 1)

    def fit(self, train_loader, val_loader, epochs: int) -> None:
        for epoch in range(1, epochs + 1):
            logs = {"train_loss": self.train_epoch(train_loader)}
            val = evaluate(self.model, val_loader)
            logs.update(val_mse=val["mse"], val_mae=val["mae"])
            for callback in self.callbacks:
                callback.on_epoch_end(self, epoch, logs)
            if self.stop:
                break
