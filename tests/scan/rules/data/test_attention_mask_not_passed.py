"""The ``attention-mask-not-passed`` rule (``mlsleuth/scan/rules/data/attention_mask_not_passed.py``)."""

from __future__ import annotations

from scan.helpers import check, project_reported, write_project

RULE = {"attention-mask-not-passed"}

_CONTROL = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    class Control(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.attn = nn.Linear(dim, 1)

        def forward(self, context, control, mask=None):
            logits = self.attn(control.unsqueeze(1) * context).squeeze(-1)
            if mask is not None:
                logits = logits.masked_fill(~mask, float("-inf"))
            return (F.softmax(logits, 1).unsqueeze(-1) * context).sum(1)
    """


def test_mask_capable_layers_called_without_a_mask_on_variable_lengths():
    src = _CONTROL + """
    class Net(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.lstm = nn.LSTM(dim, dim, batch_first=True)
            self.control = Control(dim)
            self.mha = nn.MultiheadAttention(dim, 4, batch_first=True)

        def forward(self, words, lengths, control):
            packed = pack_padded_sequence(words, lengths.cpu(), batch_first=True, enforce_sorted=False)
            out, _ = self.lstm(packed)
            out, _ = pad_packed_sequence(out, batch_first=True)
            for _ in range(4):
                control = self.control(out, control)  # expect: attention-mask-not-passed
            return control

    class Encoder(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.mha = nn.MultiheadAttention(dim, 4, batch_first=True)
            self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 4, batch_first=True), 2)

        def forward(self, x, src_key_padding_mask):
            h = self.enc(x)  # expect: attention-mask-not-passed
            y, _ = self.mha(h, h, h)  # expect: attention-mask-not-passed
            return y

    class Optional(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.mha = nn.MultiheadAttention(dim, 4, batch_first=True)

        def forward(self, x, key_padding_mask=None):
            return self.mha(x, x, x)[0]  # expect: attention-mask-not-passed

    def run(x, tokens):
        layer = Optional(8)
        return layer(x, key_padding_mask=tokens == 0)
    """
    check(src, RULE)


def test_self_contained_module_with_an_unused_mask():
    src = """
        import torch.nn as nn

        class Block(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)

            def forward(self, x, padding_mask):
                return self.attn(x, x, x)[0]  # expect: attention-mask-not-passed
        """
    check(src, RULE)


def test_layer_defined_in_another_module(tmp_path):
    write_project(tmp_path, {
        "layers.py": _CONTROL,
        "net.py": """
            import torch.nn as nn
            from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
            from layers import Control

            class Net(nn.Module):
                def __init__(self, dim):
                    super().__init__()
                    self.lstm = nn.GRU(dim, dim, batch_first=True)
                    self.read = Control(dim)

                def forward(self, words, word_len, control):
                    out, _ = self.lstm(pack_padded_sequence(words, word_len, batch_first=True))
                    out, _ = pad_packed_sequence(out, batch_first=True)
                    return self.read(out, control)
            """,
    })
    assert {(r, p, line) for r, p, line in project_reported(tmp_path, RULE)} == {("attention-mask-not-passed", "net.py", 14)}


def test_masks_passed_or_no_variable_lengths_stay_silent():
    src = _CONTROL + """
    class Net(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.lstm = nn.LSTM(dim, dim, batch_first=True)
            self.control = Control(dim)
            self.mha = nn.MultiheadAttention(dim, 4, batch_first=True)

        def forward(self, words, lengths, control):
            packed = pack_padded_sequence(words, lengths.cpu(), batch_first=True, enforce_sorted=False)
            out, _ = self.lstm(packed)
            out, _ = pad_packed_sequence(out, batch_first=True)
            mask = torch.arange(out.size(1))[None] < lengths[:, None]
            for _ in range(4):
                control = self.control(out, control, mask)
            y, _ = self.mha(out, out, out, key_padding_mask=~mask)
            return control, y

        def bucketed(self, words, lengths, control):
            assert bool((lengths == lengths[0]).all())
            out, _ = self.lstm(pack_padded_sequence(words, lengths, batch_first=True))
            out, _ = pad_packed_sequence(out, batch_first=True)
            return self.control(out, control)

        def fixed_length(self, patches, control):
            return self.control(patches, control), self.mha(patches, patches, patches)

    class Encoder(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 4, batch_first=True), 2)

        def forward(self, x, src_key_padding_mask=None):
            return self.enc(x, src_key_padding_mask=src_key_padding_mask)

        def positional(self, x, pad_mask):
            return self.enc(x, None, pad_mask)

    class SignatureOnly(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.mha = nn.MultiheadAttention(dim, 4)

        def forward(self, tgt, memory, tgt_mask=None, memory_key_padding_mask=None):
            return self.mha(tgt, memory, memory)[0]

    def decode(q, feats):
        return SignatureOnly(8)(q, feats)
    """
    check(src, RULE)
