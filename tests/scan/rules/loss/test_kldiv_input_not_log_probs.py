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


# A distribution made by hand: a non-negative value divided by its own sum (DEC's soft assignments,
# attention weights normalised by their total) is probabilities too, not log-probabilities.


def test_hand_normalised_soft_assignments_from_a_model_in_another_file(tmp_path):
    files = {
        "cluster.py": """
            import torch
            import torch.nn as nn

            class SoftAssign(nn.Module):
                def __init__(self, k, dim, alpha=1.0):
                    super().__init__()
                    self.alpha = alpha
                    self.mu = nn.Parameter(torch.randn(k, dim))

                def forward(self, z):
                    dist = torch.sum((z[:, None, :] - self.mu[None]) ** 2, dim=2)
                    num = 1.0 / (1.0 + dist / self.alpha)
                    return num / torch.sum(num, dim=1, keepdim=True)

            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.enc = nn.Linear(8, 4)
                    self.assign = SoftAssign(3, 4)

                def forward(self, x):
                    z = self.enc(x)
                    return z, self.assign(z)
        """,
        "train.py": """
            import torch.nn.functional as F
            from cluster import Net

            net = Net()

            def sharpen(q):
                w = q ** 2 / q.sum(0)
                return (w.t() / w.sum(1)).t()

            def cluster_step(x):
                _, q = net(x)
                return F.kl_div(q, sharpen(q).detach(), reduction="batchmean")  # expect: kldiv-input-not-log-probs
        """,
    }
    check_project(tmp_path, files, KL)


def test_hand_normalised_weights_through_a_helper_and_a_criterion_attribute():
    src = """
        import torch
        import torch.nn as nn

        def normalise(scores):
            w = scores.exp()
            return w / w.sum(dim=-1, keepdim=True)

        class Matcher(nn.Module):
            def __init__(self):
                super().__init__()
                self.crit = nn.KLDivLoss(reduction="batchmean")

            def forward(self, scores, prior):
                p = normalise(scores)
                return self.crit(p, prior)  # expect: kldiv-input-not-log-probs

        def counts_loss(counts, prior):
            hist = counts.float().abs()
            return nn.functional.kl_div(hist / hist.sum(), prior)  # expect: kldiv-input-not-log-probs
        """
    check(src, KL)
    (f,) = [m for m in findings(src, "kldiv-input-not-log-probs") if m.location.line == 15]
    assert "torch.log(q.clamp_min" in f.fix


def test_ratios_that_are_not_hand_made_distributions_stay_silent():
    src = """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        lin = nn.Linear(8, 4)

        def logged(z, mu, prior):
            num = 1.0 / (1.0 + torch.cdist(z, mu) ** 2)
            q = num / num.sum(1, keepdim=True)
            return F.kl_div(torch.log(q), prior, reduction="batchmean")

        def signed_ratio(x, prior):
            s = lin(x)
            return F.kl_div(s / s.sum(1, keepdim=True), prior)

        def other_total(a, b, prior):
            w = a.exp()
            return F.kl_div(w / b.sum(1, keepdim=True), prior)

        def log_space(x, prior):
            e = x.exp()
            return F.kl_div(e.log() - e.sum(-1, keepdim=True).log(), prior)

        def as_target(logits, weights):
            w = weights.abs()
            return F.kl_div(F.log_softmax(logits, -1), w / w.sum(-1, keepdim=True), reduction="batchmean")
        """
    check(src, KL)
