import torch
import torch.nn as nn
import torch.nn.functional as F


class DistillationObjective(nn.Module):
    """Hinton-style KD: alpha * T^2 * KL(teacher || student) + (1 - alpha) * CE(labels)."""

    def __init__(self, temperature=4.0, alpha=0.9):
        super().__init__()
        self.T = temperature
        self.alpha = alpha
        self.kl = nn.KLDivLoss(reduction="batchmean")
        self.ce = nn.CrossEntropyLoss()

    def forward(self, student_logits, teacher_logits, labels):
        soft = self.kl(F.log_softmax(student_logits / self.T, dim=1),
                       F.softmax(teacher_logits / self.T, dim=1)) * self.T ** 2
        hard = self.ce(student_logits, labels)
        return self.alpha * soft + (1 - self.alpha) * hard
