import torch


class Accuracy:
    """Accumulates correct counts over a whole pass (not an average of batch accuracies)."""

    def __init__(self, num_classes: int):
        self.num_classes = num_classes
        self.confusion = torch.zeros(num_classes, num_classes, dtype=torch.long)

    def update(self, logits, target):
        pred = logits.argmax(1)
        idx = target * self.num_classes + pred
        self.confusion += torch.bincount(idx, minlength=self.num_classes ** 2).view_as(self.confusion)

    def compute(self) -> dict:
        cm = self.confusion.float()
        per_class = cm.diag() / cm.sum(1).clamp(min=1)
        return {"top1": float(cm.diag().sum() / cm.sum().clamp(min=1)),
                "mean_class_acc": float(per_class.mean())}
