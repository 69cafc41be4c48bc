"""The ``kldiv-input-not-log-probs`` rule (``mlsleuth/scan/rules/loss/kldiv_input_not_log_probs.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, findings

KL = {"kldiv-input-not-log-probs"}


def test_softmax_student_into_kldivloss_in_a_distillation_helper():
    src = """
        import torch.nn as nn
        import torch.nn.functional as F

        def distillation(student_logits, teacher_logits, T=4.0):
            crit = nn.KLDivLoss(reduction="batchmean")
            s = F.softmax(student_logits / T, dim=1)
            t = F.softmax(teacher_logits / T, dim=1)
            return crit(s, t) * T * T  # expect: kldiv-input-not-log-probs
        """
    check(src, KL)
    (f,) = findings(src, "kldiv-input-not-log-probs")
    assert "s = F.softmax(student_logits / T, dim=1) at line 6" in f.observation


def test_functional_kl_div_on_method_softmax_and_on_a_sorted_batch_mean():
    src = """
        import torch
        import torch.nn.functional as F

        def prior_penalty(logits, prior):
            probs = logits.softmax(-1)
            mean_sorted = probs.mean(dim=0).sort(descending=True).values
            return F.kl_div(mean_sorted, prior, reduction="sum")  # expect: kldiv-input-not-log-probs

        def listwise(scores, labels):
            return F.kl_div(torch.sigmoid(scores), labels)  # expect: kldiv-input-not-log-probs
        """
    check(src, KL)


def test_log_space_inputs_stay_silent():
    src = """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        kl = nn.KLDivLoss(reduction="batchmean", log_target=True)

        def distill(student_logits, teacher_logits, T=2.0):
            log_s = F.log_softmax(student_logits / T, dim=-1)
            a = F.kl_div(log_s, F.softmax(teacher_logits / T, dim=-1), reduction="batchmean")
            p = F.softmax(student_logits, dim=-1)
            b = kl(torch.log(p.clamp_min(1e-8)), F.log_softmax(teacher_logits, dim=-1))
            c = F.kl_div(p.log(), F.softmax(teacher_logits, dim=-1))
            mean_logits = student_logits.mean(0)
            d = F.kl_div(mean_logits.log_softmax(-1), F.softmax(teacher_logits.mean(0), -1))
            return a + b + c + d
        """
    check(src, KL)


def test_student_model_ending_in_softmax_in_another_file(tmp_path):
    files = {
        "student.py": """
            import torch.nn as nn

            class Student(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.net = nn.Sequential(nn.Linear(8, 4), nn.Softmax(dim=-1))  # expect: kldiv-input-not-log-probs

                def forward(self, x):
                    return self.net(x)
        """,
        "distill.py": """
            import torch.nn as nn
            import torch.nn.functional as F
            from student import Student

            student = Student()
            kl = nn.KLDivLoss(reduction="batchmean")

            def step(x, teacher_logits):
                return kl(student(x), F.softmax(teacher_logits, dim=-1))
        """,
    }
    check_project(tmp_path, files, KL)
