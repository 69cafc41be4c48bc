"""The ``recurrent-state-kept-on-module`` rule (``mlsleuth/scan/rules/training_loop/recurrent_state_kept_on_module.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"recurrent-state-kept-on-module"}

MODEL = """
    import torch
    import torch.nn as nn

    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(8, 16, batch_first=True)
            self.gru = nn.GRU(8, 16, batch_first=True)
            self.hidden = None
            self.state = None

        def forward(self, x):
            out, self.hidden = self.lstm(x, self.hidden)  # expect: recurrent-state-kept-on-module
            return out
"""


def test_state_stored_and_fed_back_without_detach():
    check(MODEL, RULE)


def test_detached_or_reset_states_are_fine():
    src = """
        import torch
        import torch.nn as nn

        class Detached(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(8, 16)
                self.hidden = None

            def forward(self, x):
                out, hidden = self.lstm(x, self.hidden)
                self.hidden = tuple(h.detach() for h in hidden)
                return out

        class Repackaged(nn.Module):
            def __init__(self):
                super().__init__()
                self.gru = nn.GRU(8, 16)
                self.state = None

            def forward(self, x):
                out, self.state = self.gru(x, self.state)
                return out

            def end_of_sequence(self):
                self.state = self.state.detach()

        class WithReset(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.RNN(8, 16)
                self.h = None

            def reset(self, batch):
                self.h = torch.zeros(1, batch, 16)

            def forward(self, x):
                out, self.h = self.rnn(x, self.h)
                return out

        class Inference(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.RNN(8, 16)
                self.h = None

            def forward(self, x):
                with torch.no_grad():
                    out, self.h = self.rnn(x, self.h)
                return out
        """
    check(src, RULE)


def test_reset_by_the_training_loop_in_another_module(tmp_path):
    files = {
        "model.py": MODEL.replace("  # expect: recurrent-state-kept-on-module", ""),
        "train.py": """
            from model import Tagger

            def train(loader, opt):
                model = Tagger()
                for x, y in loader:
                    model.hidden = None
                    opt.zero_grad()
                    model(x).sum().backward()
                    opt.step()
        """,
    }
    check_project(tmp_path, files, RULE)
