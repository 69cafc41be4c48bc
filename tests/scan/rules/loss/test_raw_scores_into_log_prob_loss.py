"""The ``raw-scores-into-log-prob-loss`` rule (``mlsleuth/scan/rules/loss/raw_scores_into_log_prob_loss.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"raw-scores-into-log-prob-loss"}


def test_linear_head_into_nll_loss_and_kl_div():
    src = """
        import torch.nn as nn
        import torch.nn.functional as F

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Linear(8, 16)
                self.head = nn.Linear(16, 3)

            def forward(self, x):
                return self.head(F.relu(self.body(x)))

        model = Net()
        mlp = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))

        def step(x, y, teacher_probs):
            a = F.nll_loss(model(x), y)  # expect: raw-scores-into-log-prob-loss
            b = nn.KLDivLoss(reduction="batchmean")(mlp(x), teacher_probs)  # expect: raw-scores-into-log-prob-loss
            return a + b
        """
    check(src, RULE)


def test_log_softmax_outputs_and_cross_entropy_are_fine():
    src = """
        import torch.nn as nn
        import torch.nn.functional as F

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = nn.Linear(16, 3)

            def forward(self, x):
                return F.log_softmax(self.head(x), dim=1)

        model = Net()
        raw = nn.Sequential(nn.Linear(8, 3))
        logp = nn.Sequential(nn.Linear(8, 3), nn.LogSoftmax(dim=1))

        def step(x, y):
            return F.nll_loss(model(x), y) + F.cross_entropy(raw(x), y) + F.nll_loss(logp(x), y) + F.nll_loss(raw(x).log_softmax(1), y)
        """
    check(src, RULE)


def test_model_in_another_module(tmp_path):
    files = {
        "net.py": """
            import torch.nn as nn

            class Tagger(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.emb = nn.Embedding(100, 16)
                    self.out = nn.Linear(16, 5)

                def forward(self, tokens):
                    return self.out(self.emb(tokens))
        """,
        "train.py": """
            import torch
            import torch.nn as nn
            from net import Tagger

            model = Tagger()
            crit = nn.NLLLoss()
            opt = torch.optim.Adam(model.parameters())
            for tokens, tags in []:
                opt.zero_grad()
                crit(model(tokens).view(-1, 5), tags.view(-1)).backward()  # expect: raw-scores-into-log-prob-loss
                opt.step()
        """,
    }
    check_project(tmp_path, files, RULE)
