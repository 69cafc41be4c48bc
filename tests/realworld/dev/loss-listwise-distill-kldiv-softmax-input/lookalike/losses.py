import torch
import torch.nn as nn


class KLDivTeacherList(nn.Module):
    """Listwise distillation: match the student's score distribution over a candidate list to the teacher's."""

    def __init__(self):
        super().__init__()
        self.kl = nn.KLDivLoss(reduction="batchmean", log_target=True)

    def forward(self, scores, labels):
        return self.kl(torch.log_softmax(scores, dim=-1), torch.log_softmax(labels, dim=-1))


class MarginMSE(nn.Module):
    def __init__(self):
        super().__init__()
        self.mse = nn.MSELoss()

    def forward(self, pos, neg, teacher_pos, teacher_neg):
        return self.mse(pos - neg, teacher_pos - teacher_neg)


def build_loss(name):
    return {"kldiv_list": KLDivTeacherList, "margin_mse": MarginMSE}[name]()
