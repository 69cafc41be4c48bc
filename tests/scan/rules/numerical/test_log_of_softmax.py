"""The ``log-of-softmax`` rule (``mlsleuth/scan/rules/numerical/log_of_softmax.py``)."""

from __future__ import annotations

from scan.helpers import check, findings


def test_log_of_softmax_direct_named_method_and_sigmoid():
    src = """
    import torch
    import torch.nn.functional as F

    def losses(z, y):
        a = torch.log(F.softmax(z, dim=1))  # expect: log-of-softmax
        probs = z.softmax(dim=-1)
        b = probs.log()  # expect: log-of-softmax
        c = torch.log(torch.sigmoid(z))  # expect: log-of-softmax
        return a, b, c
    """
    check(src, {"log-of-softmax"})
    got = findings(src, "log-of-softmax")
    assert any("logsigmoid" in f.message for f in got)


def test_log_softmax_and_eps_shifted_log_are_not_flagged():
    src = """
    import torch
    import torch.nn.functional as F

    def losses(z, eps=1e-8):
        a = F.log_softmax(z, dim=1)
        probs = torch.softmax(z, dim=1)
        b = torch.log(probs + eps)
        c = torch.log(probs.clamp(min=eps))
        entropy = -(probs * a).sum(1)
        return b, c, entropy, torch.log(z)
    """
    check(src, {'log-of-softmax'})


def test_log_of_a_batch_mean_of_probabilities_has_no_fused_form():
    src = """
        import torch.nn.functional as F

        def marginal_entropy(logits):
            mean_probs = F.softmax(logits, dim=1).mean(dim=0)
            return -(mean_probs * mean_probs.log()).sum()
        """
    check(src, {"log-of-softmax"})


def test_probabilities_from_a_parameter_a_method_of_another_module_and_one_minus_sigmoid(tmp_path):
    from scan.helpers import check_project

    check_project(
        tmp_path,
        {
            "model.py": """
                import torch
                import torch.nn as nn

                class Net(nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.fc = nn.Linear(8, 3)

                    def forward(self, x):
                        return self.fc(x)

                    def probabilities(self, x):
                        return torch.softmax(self.forward(x), dim=-1)
                """,
            "train.py": """
                import torch
                import torch.nn.functional as F
                from model import Net

                def nll(probs, y):
                    return F.nll_loss(torch.log(probs), y)  # expect: log-of-softmax

                def picked(probs, y):
                    p_t = probs.gather(1, y[:, None]).squeeze(1)
                    return -torch.log(p_t).mean()  # expect: log-of-softmax

                def bce(p, t):
                    return -(t * torch.log(p.clamp_min(1e-7)) + (1 - t) * torch.log(1 - p)).mean()  # expect: log-of-softmax

                def fit(x, y, t):
                    net = Net()
                    nll(net.probabilities(x), y).backward()
                    picked(net.probabilities(x), y).backward()
                    bce(torch.sigmoid(net(x)[:, 0]), t).backward()
                """,
        },
        {"log-of-softmax"},
    )


def test_parameters_fed_other_values_and_clamped_logs_stay_silent(tmp_path):
    from scan.helpers import check_project

    check_project(
        tmp_path,
        {
            "train.py": """
                import torch

                def entropy(p):
                    return -(p * torch.log(p)).sum(-1)

                def use(x, counts):
                    a = entropy(torch.softmax(x, -1).clamp_min(1e-8))
                    b = entropy(counts / counts.sum())
                    return a, b

                def one_minus_softmax(x):
                    return torch.log(1 - torch.softmax(x, -1))
                """,
        },
        {"log-of-softmax"},
    )


def test_a_number_printed_under_no_grad_is_not_flagged_but_the_loss_and_returned_log_probs_are():
    src = """
    import torch
    import torch.nn.functional as F

    @torch.no_grad()
    def teacher_student_kl(student, x, teacher_logits, T=2.0):
        p_t = F.softmax(teacher_logits / T, dim=-1)
        log_s = F.log_softmax(student(x) / T, dim=-1)
        return (p_t * (p_t.log() - log_s)).sum(-1).mean().item()

    def evaluate(model, loader):
        nll = 0.0
        with torch.inference_mode():
            for x, y in loader:
                probs = model(x).softmax(-1)
                nll -= torch.log(probs).gather(1, y[:, None]).sum().item()
        return nll

    def train_loss(logits, teacher_logits):
        p_t = F.softmax(teacher_logits, dim=-1)
        with torch.no_grad():
            ent = -(p_t * p_t.log()).sum(-1).mean().item()
        p_s = F.softmax(logits, dim=-1)
        return (p_t * (p_t.log() - p_s.log())).sum(-1).mean() + ent  # expect: log-of-softmax

    @torch.no_grad()
    def predict(model, x):
        return torch.log(F.softmax(model(x), dim=1))  # expect: log-of-softmax
    """
    check(src, {"log-of-softmax"})
