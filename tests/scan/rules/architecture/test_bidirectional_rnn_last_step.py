"""The ``bidirectional-rnn-last-step`` rule (``mlsleuth/scan/rules/architecture/bidirectional_rnn_last_step.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"bidirectional-rnn-last-step"}


def test_last_step_of_a_bidirectional_rnn():
    src = """
    import torch
    from torch import nn

    class BiLSTM(nn.Module):
        def __init__(self, d, h, n):
            super().__init__()
            self.lstm = nn.LSTM(d, h, 2, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(2 * h, n)

        def forward(self, x):
            out, _ = self.lstm(x)
            return self.fc(out[:, -1, :])  # expect: bidirectional-rnn-last-step

    class SeqFirstGRU(nn.Module):
        def __init__(self, d, h, n):
            super().__init__()
            self.rnn = nn.GRU(d, h, bidirectional=True)
            self.head = nn.Linear(2 * h, n)

        def forward(self, x):
            states = self.rnn(x)[0]
            summary = states[-1]  # expect: bidirectional-rnn-last-step
            return self.head(summary)
    """
    check(src, RULE)


def test_final_states_halves_or_unidirectional_are_fine():
    src = """
    import torch
    from torch import nn

    class FromHidden(nn.Module):
        def __init__(self, d, h, n):
            super().__init__()
            self.h = h
            self.lstm = nn.LSTM(d, h, batch_first=True, bidirectional=True)
            self.uni = nn.LSTM(d, h, batch_first=True)
            self.fc = nn.Linear(2 * h, n)

        def forward(self, x):
            out, (h_n, _) = self.lstm(x)
            a = torch.cat([h_n[-2], h_n[-1]], dim=-1)
            b = torch.cat([out[:, -1, : self.h], out[:, 0, self.h :]], dim=-1)
            c = out.mean(dim=1)
            u, _ = self.uni(x)
            d = u[:, -1, :]
            tagged = out[:, :, :]
            return self.fc(a + b + c), d, tagged
    """
    check(src, RULE)
