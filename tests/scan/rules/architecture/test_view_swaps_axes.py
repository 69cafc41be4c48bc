"""The ``view-swaps-axes`` rule (``mlsleuth/scan/rules/architecture/view_swaps_axes.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"view-swaps-axes"}


def test_axes_reordered_by_view_or_reshape():
    src = """
        import torch
        import torch.nn as nn

        class SeqClassifier(nn.Module):
            def __init__(self, n_feat, hidden):
                super().__init__()
                self.rnn = nn.LSTM(n_feat, hidden)

            def forward(self, x):
                batch, seq_len, n_feat = x.shape
                x = x.view(seq_len, batch, n_feat)  # expect: view-swaps-axes
                out, _ = self.rnn(x)
                return out

        def to_channels_first(img):
            b, h, w, c = img.size()
            return img.reshape(b, c, h * w)  # expect: view-swaps-axes

        def time_major(x):
            return x.reshape(x.size(1), x.size(0), -1)  # expect: view-swaps-axes

        def functional_form(x):
            n, t = x.shape[:2]
            return torch.reshape(x, (t, n, -1))  # expect: view-swaps-axes
        """
    check(src, RULE)


def test_merging_splitting_and_real_transposes_stay_silent():
    src = """
        import torch
        import torch.nn as nn

        class SelfAttention(nn.Module):
            def __init__(self, dim, heads):
                super().__init__()
                self.heads = heads
                self.qkv = nn.Linear(dim, 3 * dim)

            def forward(self, x):
                b, t, c = x.shape
                q, k, v = self.qkv(x).split(c, dim=2)
                q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
                att = torch.softmax(q @ k.view(b, t, self.heads, -1).transpose(1, 2).transpose(-2, -1), dim=-1)
                y = (att @ v.view(b, t, self.heads, -1).transpose(1, 2)).transpose(1, 2).contiguous().view(b, t, c)
                return y.view(b * t, c)

        def flatten_time(x):
            batch, seq_len, n_feat = x.shape
            return x.reshape(batch * seq_len, n_feat)

        def swapped_properly(x):
            batch, seq_len, n_feat = x.shape
            x = x.transpose(0, 1)
            return x.view(seq_len, batch, n_feat)

        def permuted_then_viewed(x):
            b, h, w, c = x.shape
            return x.permute(0, 3, 1, 2).reshape(b, c, h * w)

        def gram_matrix(y):
            (b, ch, h, w) = y.size()
            features = y.view(b, ch, w * h)
            return features.bmm(features.transpose(1, 2)) / (ch * h * w)

        def other_tensor(x, y):
            b, t = x.shape[:2]
            return y.view(t, b)
        """
    check(src, RULE)


def test_the_relative_shift_trick_reinterprets_memory_on_purpose():
    src = """
        import torch

        def relative_shift(scores, shift):
            b, h, q, r = scores.shape
            scores = torch.reshape(scores, [b, h, r, q])
            scores = scores[:, :, shift:, :]
            return torch.reshape(scores, [b, h, q, r - shift])

        def rel_shift(x):
            b, h, q, r = x.size()
            x = torch.nn.functional.pad(x, (1, 0))
            x = x.view(b, h, r + 1, q)
            return x[:, :, 1:].view_as(x)
        """
    check(src, RULE)
