import torch


class ConfusionMatrix:
    def __init__(self, n_classes: int):
        self.matrix = torch.zeros(n_classes, n_classes, dtype=torch.long)

    def update(self, logits: torch.Tensor, labels: torch.Tensor) -> None:
        pred = logits.argmax(dim=-1)
        idx = labels * self.matrix.shape[0] + pred
        self.matrix += torch.bincount(idx, minlength=self.matrix.numel()).view_as(self.matrix)

    def compute(self) -> dict:
        m = self.matrix.double()
        tp = m.diag()
        precision = tp / m.sum(0).clamp(min=1)
        recall = tp / m.sum(1).clamp(min=1)
        f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-12)
        return {"acc": (tp.sum() / m.sum().clamp(min=1)).item(), "macro_f1": f1.mean().item()}
