"""The ``positional-encoding-sliced-by-batch`` rule (``mlsleuth/scan/rules/architecture/positional_encoding_sliced_by_batch.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"positional-encoding-sliced-by-batch"}

PE = """
    import math
    import torch
    from torch import nn

    class PositionalEncoding(nn.Module):
        def __init__(self, d, max_len=512):
            super().__init__()
            pos = torch.arange(max_len).unsqueeze(1)
            div = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
            pe = torch.zeros(max_len, 1, d)
            pe[:, 0, 0::2] = torch.sin(pos * div)
            pe[:, 0, 1::2] = torch.cos(pos * div)
            self.register_buffer("pe", pe)

        def forward(self, x):
            return x + self.pe[: x.size(0)]{mark}
"""


def test_tutorial_table_fed_batch_first_tensors(tmp_path):
    files = {
        "layers.py": PE.format(mark="  # expect: positional-encoding-sliced-by-batch"),
        "model.py": """
            from torch import nn
            from layers import PositionalEncoding

            class Classifier(nn.Module):
                def __init__(self, vocab, d, n):
                    super().__init__()
                    self.embed = nn.Embedding(vocab, d)
                    self.pos = PositionalEncoding(d)
                    layer = nn.TransformerEncoderLayer(d, 4, batch_first=True)
                    self.encoder = nn.TransformerEncoder(layer, 2)
                    self.head = nn.Linear(d, n)

                def forward(self, tokens):
                    h = self.encoder(self.pos(self.embed(tokens)))
                    return self.head(h.mean(dim=1))
            """,
    }
    check_project(tmp_path, files, RULE)


def test_sequence_first_models_and_batch_first_tables_are_fine(tmp_path):
    files = {
        "layers.py": PE.format(mark=""),
        "seqfirst.py": """
            from torch import nn
            from layers import PositionalEncoding

            class Transposed(nn.Module):
                def __init__(self, d):
                    super().__init__()
                    self.pos = PositionalEncoding(d)
                    self.attn = nn.MultiheadAttention(d, 4, batch_first=True)

                def forward(self, x):
                    x = self.pos(x.transpose(0, 1)).transpose(0, 1)
                    return self.attn(x, x, x)[0]

            class SeqFirst(nn.Module):
                def __init__(self, d):
                    super().__init__()
                    self.pos = PositionalEncoding(d)
                    self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 4), 2)

                def forward(self, x):
                    return self.encoder(self.pos(x))
            """,
        "batchfirst.py": """
            import torch
            from torch import nn

            class LearnedPE(nn.Module):
                def __init__(self, d, max_len=512):
                    super().__init__()
                    self.register_buffer("pe", torch.zeros(1, max_len, d))

                def forward(self, x):
                    return x + self.pe[:, : x.size(1)]

            class Model(nn.Module):
                def __init__(self, d):
                    super().__init__()
                    self.pos = LearnedPE(d)
                    self.rnn = nn.GRU(d, d, batch_first=True)

                def forward(self, x):
                    return self.rnn(self.pos(x))[0]
            """,
    }
    check_project(tmp_path, files, RULE)


def test_one_file_model_with_the_table():
    src = """
    import torch
    from torch import nn

    class PositionalEncoding(nn.Module):
        def __init__(self, d, max_len=512):
            super().__init__()
            self.register_buffer("pe", torch.zeros(max_len, 1, d))

        def forward(self, x):
            return x + self.pe[: x.shape[0], :]  # expect: positional-encoding-sliced-by-batch

    class Tagger(nn.Module):
        def __init__(self, d, n):
            super().__init__()
            self.pos = PositionalEncoding(d)
            self.lstm = nn.LSTM(d, d, batch_first=True)
            self.out = nn.Linear(d, n)

        def forward(self, x):
            return self.out(self.lstm(self.pos(x))[0])
    """
    check(src, RULE)
