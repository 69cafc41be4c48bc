"""The ``distillation-loss-missing-temperature-squared`` rule
(``mlsleuth/scan/rules/loss/distillation_loss_missing_temperature_squared.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"distillation-loss-missing-temperature-squared"}


def test_softened_kd_terms_without_the_square():
    src = """
    import torch
    import torch.nn.functional as F
    from torch import nn

    class KDPolicy:
        def __init__(self, teacher, temperature=5.0):
            self.teacher = teacher
            self.temperature = temperature

        def combined(self, s_logits, t_logits, loss, w):
            T = self.temperature
            soft_log_probs = F.log_softmax(s_logits / T, dim=1)
            soft_targets = F.softmax(t_logits / T, dim=1)
            kd = F.kl_div(soft_log_probs, soft_targets, reduction="sum") / soft_targets.size(0)  # expect: distillation-loss-missing-temperature-squared
            return w * loss + (1 - w) * kd

    class Distiller(nn.Module):
        def __init__(self, args):
            super().__init__()
            self.args = args
            self.kl = nn.KLDivLoss(reduction="batchmean")

        def training_step(self, batch, student, teacher):
            x, y = batch
            s = student(x)
            with torch.no_grad():
                t = teacher(x)
            kd = self.kl(F.log_softmax(s / self.args.temperature, -1), F.softmax(t / self.args.temperature, -1))  # expect: distillation-loss-missing-temperature-squared
            ce = F.cross_entropy(s, y)
            soft_ce = (-F.softmax(t / 4.0, dim=1) * F.log_softmax(s / 4.0, dim=1)).sum(1).mean()  # expect: distillation-loss-missing-temperature-squared
            return 0.5 * kd + 0.5 * ce + soft_ce
    """
    check(src, RULE)


def test_squared_or_unsoftened_terms_are_fine():
    src = """
    import torch
    import torch.nn.functional as F
    from torch import nn

    def kd_loss(s, t, y, T=4.0, alpha=0.9):
        soft = F.kl_div(F.log_softmax(s / T, dim=1), F.softmax(t / T, dim=1), reduction="batchmean") * T * T
        soft2 = F.kl_div(F.log_softmax(s / T, dim=1), F.softmax(t / T, dim=1), reduction="batchmean")
        return alpha * (soft + soft2 * (T ** 2)) + (1 - alpha) * F.cross_entropy(s, y)

    class KD(nn.Module):
        def __init__(self, T):
            super().__init__()
            self.T = T

        def forward(self, s, t):
            p_s = F.log_softmax(s / self.T, dim=1)
            p_t = F.softmax(t / self.T, dim=1)
            return F.kl_div(p_s, p_t, reduction="batchmean") * self.T ** 2

    def kl_policy(new_logits, old_logits):
        return F.kl_div(F.log_softmax(new_logits, -1), F.softmax(old_logits, -1), reduction="batchmean")

    def mixed(s, t, T):
        return F.kl_div(F.log_softmax(s, -1), F.softmax(t / T, -1), reduction="batchmean")

    def unit_temperature(s, t):
        return F.kl_div(F.log_softmax(s / 1.0, -1), F.softmax(t / 1.0, -1), reduction="batchmean")

    def terms(s, t, y, T):
        kd = F.kl_div(F.log_softmax(s / T, -1), F.softmax(t / T, -1), reduction="batchmean")
        return kd, F.cross_entropy(s, y)

    def attention(q, k, v, scale):
        return F.softmax(q @ k.transpose(-1, -2) / scale, -1) @ v
    """
    check(src, RULE)


def test_helper_returning_the_soft_term_to_a_caller(tmp_path):
    files = {
        "losses.py": """
            import torch.nn.functional as F

            def soft_term(s, t, T):
                return F.kl_div(F.log_softmax(s / T, 1), F.softmax(t / T, 1), reduction="batchmean")  # expect: distillation-loss-missing-temperature-squared

            def soft_term_scaled_by_caller(s, t, T):
                return F.kl_div(F.log_softmax(s / T, 1), F.softmax(t / T, 1), reduction="batchmean")
        """,
        "train.py": """
            import torch.nn.functional as F
            from losses import soft_term, soft_term_scaled_by_caller

            def step(s, t, y, cfg):
                loss = cfg.alpha * soft_term(s, t, cfg.T) + (1 - cfg.alpha) * F.cross_entropy(s, y)
                return loss

            def step2(s, t, y, cfg):
                return soft_term_scaled_by_caller(s, t, cfg.T) * cfg.T ** 2 + F.cross_entropy(s, y)
        """,
    }
    check_project(tmp_path, files, RULE)
