"""Knowledge distillation as a scheduled training policy (Hinton et al., 2015)."""
from collections import namedtuple

import torch
import torch.nn.functional as F

from policy import ScheduledTrainingPolicy

DistillationLossWeights = namedtuple("DistillationLossWeights", ["distill", "student", "teacher"])


class KnowledgeDistillationPolicy(ScheduledTrainingPolicy):
    def __init__(self, student_model, teacher_model, temperature=1.0,
                 loss_weights=DistillationLossWeights(0.5, 0.5, 0.0)):
        super().__init__()
        self.student = student_model
        self.teacher = teacher_model
        self.temperature = temperature
        self.loss_wts = loss_weights
        self.active = False
        self.last_students_logits = None
        self.last_teacher_logits = None

    def forward(self, *inputs):
        """Run student and (frozen) teacher on the same batch; remember both logits."""
        if not self.active:
            return self.student(*inputs)
        with torch.no_grad():
            self.last_teacher_logits = self.teacher(*inputs)
        out = self.student(*inputs)
        self.last_students_logits = out
        return out

    def on_epoch_begin(self, model, epoch, **kwargs):
        self.active = True
        self.teacher.eval()

    def on_epoch_end(self, model, epoch, **kwargs):
        self.active = False

    def before_backward_pass(self, model, epoch, minibatch_id, minibatches_per_epoch, loss, **kwargs):
        if not self.active:
            return None
        T = self.temperature
        soft_log_probs = F.log_softmax(self.last_students_logits / T, dim=1)
        soft_targets = F.softmax(self.last_teacher_logits / T, dim=1)
        distillation_loss = F.kl_div(soft_log_probs, soft_targets, reduction="sum") / soft_targets.size(0)

        overall_loss = self.loss_wts.student * loss + self.loss_wts.distill * distillation_loss
        return overall_loss
