"""The ``kldiv-log-target-unflagged`` rule (``mlsleuth/scan/rules/loss/kldiv_log_target_unflagged.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = {"kldiv-log-target-unflagged"}


def test_functional_kl_div_with_a_log_softmax_target():
    src = """
    import torch.nn.functional as F

    def distill(student_logits, teacher_logits, T=4.0):
        s = F.log_softmax(student_logits / T, dim=-1)
        t = F.log_softmax(teacher_logits / T, dim=-1)
        return F.kl_div(s, t, reduction="batchmean") * T * T  # expect: kldiv-log-target-unflagged
    """
    check(src, RULE)


def test_criterion_module_built_in_init_and_method_spellings():
    src = """
    import torch
    import torch.nn as nn

    class Consistency(nn.Module):
        def __init__(self):
            super().__init__()
            self.kl = nn.KLDivLoss(reduction="batchmean")
            self.log_sm = nn.LogSoftmax(dim=1)

        def forward(self, a, b):
            return self.kl(a.log_softmax(1), self.log_sm(b))  # expect: kldiv-log-target-unflagged

    def r_drop(p_logits, q_logits):
        crit = nn.KLDivLoss(reduction="sum")
        q = torch.softmax(q_logits, -1).log()
        return crit(p_logits.log_softmax(-1), q)  # expect: kldiv-log-target-unflagged
    """
    check(src, RULE)


def test_target_from_a_teacher_model_ending_in_log_softmax_and_through_a_helper_parameter():
    src = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Teacher(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 10)

        def forward(self, x):
            return F.log_softmax(self.fc(x), dim=1)

    teacher = Teacher()

    def kd_term(student_out, teacher_out):
        return F.kl_div(F.log_softmax(student_out, 1), teacher_out, reduction="batchmean")  # expect: kldiv-log-target-unflagged

    def step(student, x):
        with torch.no_grad():
            t = teacher(x)
        return kd_term(student(x), t)
    """
    check(src, RULE)


def test_log_target_true_or_probability_targets_are_fine():
    src = """
    import torch.nn as nn
    import torch.nn.functional as F

    def deit_style(outputs_kd, teacher_outputs, T):
        return F.kl_div(
            F.log_softmax(outputs_kd / T, dim=1),
            F.log_softmax(teacher_outputs / T, dim=1),
            reduction="sum",
            log_target=True,
        ) * (T * T) / outputs_kd.numel()

    def classic_kd(y, teacher_scores, T):
        return nn.KLDivLoss(reduction="batchmean")(F.log_softmax(y / T, dim=1), F.softmax(teacher_scores / T, dim=1))

    class Sym(nn.Module):
        def __init__(self):
            super().__init__()
            self.kl = nn.KLDivLoss(reduction="batchmean", log_target=True)

        def forward(self, a, b):
            return self.kl(a.log_softmax(-1), b.log_softmax(-1))
    """
    check(src, RULE)


def test_flag_read_from_a_setting_or_kwargs_stays_silent():
    src = """
    import torch.nn as nn
    import torch.nn.functional as F

    class KD(nn.Module):
        def __init__(self, log_target, **kw):
            super().__init__()
            self.kl = nn.KLDivLoss(log_target=log_target)
            self.kw = kw

        def forward(self, s, t):
            return self.kl(F.log_softmax(s, -1), F.log_softmax(t, -1))

    def loss(s, t, **kw):
        return F.kl_div(F.log_softmax(s, -1), F.log_softmax(t, -1), **kw)
    """
    check(src, RULE)


def test_message_names_the_log_space_target():
    src = """
    import torch.nn.functional as F

    def distill(s, t):
        return F.kl_div(F.log_softmax(s, -1), F.log_softmax(t, -1), reduction="batchmean")
    """
    (f,) = findings(src, "kldiv-log-target-unflagged")
    assert "log_target" in f.message and "log_softmax" in f.message
