"""The ``padded-rnn-output-last-step`` rule (``mlsleuth/scan/rules/architecture/padded_rnn_output_last_step.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = {"padded-rnn-output-last-step"}


def test_batch_first_output_read_at_the_last_step():
    src = """
    import torch.nn as nn
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    class Classifier(nn.Module):
        def __init__(self, vocab, dim, n_cls):
            super().__init__()
            self.emb = nn.Embedding(vocab, dim, padding_idx=0)
            self.lstm = nn.LSTM(dim, dim, batch_first=True)
            self.fc = nn.Linear(dim, n_cls)

        def forward(self, ids, lengths):
            packed = pack_padded_sequence(self.emb(ids), lengths.cpu(), batch_first=True, enforce_sorted=False)
            out, _ = self.lstm(packed)
            out, _ = pad_packed_sequence(out, batch_first=True)
            return self.fc(out[:, -1, :])  # expect: padded-rnn-output-last-step
    """
    check(src, RULE)


def test_sequence_first_default_and_module_alias_and_index_zero_spelling():
    src = """
    import torch
    import torch.nn as nn

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(32, 64)

        def forward(self, x, lens):
            packed = nn.utils.rnn.pack_padded_sequence(x, lens)
            out, h = self.gru(packed)
            out = nn.utils.rnn.pad_packed_sequence(out)[0]
            return out[-1]  # expect: padded-rnn-output-last-step

    def encode(rnn, x, lens):
        packed = torch.nn.utils.rnn.pack_padded_sequence(x, lens, True, enforce_sorted=False)
        y, _ = rnn(packed)
        y, y_lens = torch.nn.utils.rnn.pad_packed_sequence(y, True)
        return y[:, -1]  # expect: padded-rnn-output-last-step
    """
    check(src, RULE)


def test_final_hidden_state_or_gathered_last_steps_are_fine():
    src = """
    import torch
    import torch.nn as nn
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    class Good(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(8, 16, batch_first=True)

        def forward(self, x, lengths):
            packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            out, (h_n, c_n) = self.lstm(packed)
            summary = h_n[-1]
            out, lens = pad_packed_sequence(out, batch_first=True)
            last = out[torch.arange(out.size(0)), lens - 1]
            return summary + last

    def first_token(lstm, packed):
        out, _ = lstm(packed)
        out, _ = pad_packed_sequence(out, batch_first=True)
        return out[:, 0]
    """
    check(src, RULE)


def test_axis_that_does_not_match_the_layout_or_a_reassigned_output_is_fine():
    src = """
    import torch.nn as nn
    from torch.nn.utils.rnn import pad_packed_sequence

    def last_example(lstm, packed):
        out, _ = lstm(packed)
        out, _ = pad_packed_sequence(out, batch_first=True)
        return out[-1]

    def pooled(lstm, packed, flag):
        out, _ = lstm(packed)
        out, lens = pad_packed_sequence(out, batch_first=flag)
        return out[:, -1]

    def reassigned(lstm, packed, lens):
        out, _ = lstm(packed)
        out, _ = pad_packed_sequence(out, batch_first=True)
        out = out.flip(1)
        return out[:, -1]
    """
    check(src, RULE)


def test_message_explains_the_zeros():
    src = """
    from torch.nn.utils.rnn import pad_packed_sequence

    def f(lstm, packed):
        out, _ = lstm(packed)
        out, _ = pad_packed_sequence(out, batch_first=True)
        return out[:, -1]
    """
    (f,) = findings(src, "padded-rnn-output-last-step")
    assert "padding" in f.message and "h_n" in (f.fix or "")
