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


def test_ctc_loss_on_a_dict_entry_of_a_model_passed_into_a_task(tmp_path):
    # the scores travel: a Linear head -> a dict the forward returns -> a model stored by a task
    # object built in another module -> a key read in a helper method -> F.ctc_loss / nn.CTCLoss
    files = {
        "model.py": """
            from torch import nn

            class Aligner(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.rnn = nn.GRU(8, 16, batch_first=True)
                    self.ph_head = nn.Linear(16, 5)
                    self.bd_head = nn.Linear(16, 1)

                def forward(self, x):
                    h, _ = self.rnn(x)
                    return {"frame_scores": self.ph_head(h), "boundary": self.bd_head(h).squeeze(-1)}
            """,
        "task.py": """
            import torch.nn.functional as F
            from torch import nn

            class Task:
                def __init__(self, model):
                    self.model = model
                    self.ctc = nn.CTCLoss(zero_infinity=True)

                def losses(self, batch):
                    out = self.model(batch["x"])
                    scores = out["frame_scores"].transpose(0, 1)
                    a = F.ctc_loss(scores, batch["y"], batch["xl"], batch["yl"])  # expect: raw-scores-into-log-prob-loss
                    b = self.ctc(log_probs=out["frame_scores"].transpose(0, 1), targets=batch["y"], input_lengths=batch["xl"], target_lengths=batch["yl"])  # expect: raw-scores-into-log-prob-loss
                    c = F.binary_cross_entropy_with_logits(out["boundary"], batch["b"])
                    return a + b + c
            """,
        "train.py": """
            from model import Aligner
            from task import Task

            task = Task(Aligner())
            """,
    }
    check_project(tmp_path, files, RULE)


def test_ctc_loss_on_log_softmax_entries_is_fine(tmp_path):
    files = {
        "model.py": """
            import torch.nn.functional as F
            from torch import nn

            class Aligner(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.ph_head = nn.Linear(16, 5)

                def forward(self, h):
                    scores = self.ph_head(h)
                    return {"log_probs": F.log_softmax(scores, dim=-1), "scores": scores}
            """,
        "train.py": """
            import torch.nn.functional as F
            from model import Aligner

            def step(model, batch):
                out = model(batch["x"])
                ctc = F.ctc_loss(out["log_probs"].transpose(0, 1), batch["y"], batch["xl"], batch["yl"])
                ce = F.cross_entropy(out["scores"].flatten(0, 1), batch["frames"].flatten())
                ctc2 = F.ctc_loss(out["scores"].log_softmax(-1).transpose(0, 1), batch["y"], batch["xl"], batch["yl"])
                return ctc + ce + ctc2

            step(Aligner(), {})
            """,
    }
    check_project(tmp_path, files, RULE)
