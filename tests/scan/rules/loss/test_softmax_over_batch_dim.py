"""The ``softmax-over-batch-dim`` rule (``mlsleuth/scan/rules/loss/softmax_over_batch_dim.py``)."""

from __future__ import annotations

from scan.helpers import check


def test_softmax_over_batch_dim_in_classification_path():
    src = """
    import torch.nn.functional as F

    def train_step(model, x, y):
        logits = model(x)
        loss = F.nll_loss(F.log_softmax(logits, dim=0), y)  # expect: softmax-over-batch-dim
        probs = F.softmax(logits, 0)  # expect: softmax-over-batch-dim
        pred = probs.argmax(dim=1)
        return loss, pred
    """
    check(src, {'softmax-over-batch-dim'})


def test_softmax_dim0_on_vectors_and_attention_over_last_dim_are_fine():
    src = """
    import torch
    import torch.nn.functional as F

    def pool(scores, values, q, k):
        weights = F.softmax(scores, dim=0)
        pooled = (weights.unsqueeze(-1) * values).sum(0)
        attn = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
        top = weights.argmax()
        return pooled, attn, top
    """
    check(src, {'softmax-over-batch-dim'})


def test_shape_analysis_shows_the_batch_axis():
    src = """
        import torch.nn.functional as F
        from torch import nn

        class Intent(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.LSTM(300, 128, batch_first=True)
                self.fc = nn.Linear(128, 7)

            def forward(self, x):
                out, _ = self.rnn(x)
                return F.softmax(self.fc(out[:, -1]), dim=0)  # expect: softmax-over-batch-dim

        class Pool(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.GRU(300, 128)
                self.score = nn.Linear(128, 1)

            def forward(self, x):
                out, _ = self.rnn(x)
                weights = F.softmax(self.score(out), dim=0)
                return (weights * out).sum(dim=0)
    """
    check(src, {"softmax-over-batch-dim"})
