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
