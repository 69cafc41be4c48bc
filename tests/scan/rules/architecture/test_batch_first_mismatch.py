"""The ``batch-first-mismatch`` rule (``mlsleuth/scan/rules/architecture/batch_first_mismatch.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"batch-first-mismatch"}


def test_sequence_first_layers_fed_or_read_batch_first():
    src = """
        from torch import nn

        class FieldEncoder(nn.Module):
            def __init__(self, vocab, d, nhead):
                super().__init__()
                self.emb = nn.Embedding(vocab, d)
                layer = nn.TransformerEncoderLayer(d_model=d, nhead=nhead)
                self.enc = nn.TransformerEncoder(layer, num_layers=2)

            def forward(self, input_ids):
                shape = list(input_ids.size())
                input_ids = input_ids.view(-1, shape[-1])
                h = self.emb(input_ids)
                return self.enc(h)  # expect: batch-first-mismatch

        class Classifier(nn.Module):
            def __init__(self, vocab, d, n):
                super().__init__()
                self.emb = nn.Embedding(vocab, d)
                self.rnn = nn.LSTM(d, d, num_layers=2)
                self.out = nn.Linear(d, n)

            def forward(self, x):
                out, (h, c) = self.rnn(self.emb(x))  # expect: batch-first-mismatch
                return self.out(out[:, -1, :])

        class Pool(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.attn = nn.MultiheadAttention(d, 4)

            def forward(self, x):
                y, _ = self.attn(x, x, x)  # expect: batch-first-mismatch
                return y.mean(dim=1)
        """
    check(src, RULE)


def test_batch_first_layers_and_sequence_first_reads_stay_silent():
    src = """
        from torch import nn

        class FieldEncoder(nn.Module):
            def __init__(self, vocab, d, nhead):
                super().__init__()
                self.emb = nn.Embedding(vocab, d)
                layer = nn.TransformerEncoderLayer(d_model=d, nhead=nhead, batch_first=True)
                self.enc = nn.TransformerEncoder(layer, num_layers=2)
                self.enc2 = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, nhead), 2)

            def forward(self, input_ids):
                input_ids = input_ids.view(-1, input_ids.size(-1))
                h = self.emb(input_ids)
                a = self.enc(h)
                b = self.enc2(h.transpose(0, 1)).transpose(0, 1)
                return a, b

        class Classifier(nn.Module):
            def __init__(self, vocab, d, n):
                super().__init__()
                self.emb = nn.Embedding(vocab, d)
                self.rnn = nn.LSTM(d, d, num_layers=2)
                self.brnn = nn.GRU(d, d, batch_first=True)
                self.out = nn.Linear(d, n)

            def forward(self, x):
                out, (h, c) = self.rnn(self.emb(x))
                last = out[-1]
                seq = self.emb(x).permute(1, 0, 2)
                out2, _ = self.rnn(seq)
                out3, _ = self.brnn(self.emb(x))
                return self.out(last), out2, out3[:, -1], h[:, 0]

            def seq_first_transposed(self, x):
                out, _ = self.rnn(self.emb(x.t()))
                return out[:, -1]
        """
    check(src, RULE)
