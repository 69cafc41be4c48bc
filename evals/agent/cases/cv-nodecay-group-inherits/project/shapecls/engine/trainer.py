import torch

from ..metrics import Accuracy
from ..utils import AverageMeter


@torch.no_grad()
def evaluate(model, loader, num_classes):
    was_training = model.training
    model.eval()
    acc = Accuracy(num_classes)
    for images, labels in loader:
        acc.update(model(images), labels)
    model.train(was_training)
    return acc.compute()


class Trainer:
    def __init__(self, model, optimizer, criterion, train_loader, max_epochs, num_classes,
                 hooks=(), grad_clip=None):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.train_loader = train_loader
        self.max_epochs = max_epochs
        self.num_classes = num_classes
        self.grad_clip = grad_clip
        self.hooks = sorted(hooks, key=lambda h: h.priority)
        self.epoch = 0
        self.iter = 0
        self.log_buffer = {}

    def _call(self, name):
        for hook in self.hooks:
            getattr(hook, name)(self)

    def train_step(self, images, labels):
        logits = self.model(images)
        loss = self.criterion(logits, labels)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if self.grad_clip:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
        self.optimizer.step()
        return loss.detach(), logits.detach()

    def run(self):
        self._call("before_train")
        for self.epoch in range(1, self.max_epochs + 1):
            self.model.train()
            self.train_loader.dataset.set_epoch(self.epoch)
            loss_meter, correct, seen = AverageMeter(), 0, 0
            for images, labels in self.train_loader:
                loss, logits = self.train_step(images, labels)
                loss_meter.update(loss.item(), labels.numel())
                correct += int((logits.argmax(1) == labels).sum())
                seen += labels.numel()
                self.iter += 1
                self._call("after_iter")
            self.log_buffer = {"loss": loss_meter.avg, "train_top1": correct / max(1, seen),
                               "lr": self.optimizer.param_groups[0]["lr"]}
            self._call("after_epoch")
        self._call("after_train")
        return self.model
