"""Helpers for running packed sequences through cuDNN-style RNNs.

`pack_padded_sequence` with `enforce_sorted=True` (required for ONNX export of the encoder) wants the
batch ordered by decreasing length, so the encoder sorts the batch, runs the RNN on the packed
sequence, and puts every per-example output back into the caller's order.
"""
from __future__ import annotations

import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class LengthSort:
    def __init__(self, lengths: torch.Tensor):
        self.sorted_lengths, self.order = torch.sort(lengths, descending=True, stable=True)

    def pack(self, x: torch.Tensor):
        """x: [B, T, D] padded, in the caller's order -> PackedSequence in decreasing-length order."""
        return pack_padded_sequence(x.index_select(0, self.order), self.sorted_lengths.cpu(), batch_first=True,
                                    enforce_sorted=True)

    def unpack(self, packed, total_length: int) -> torch.Tensor:
        out, _ = pad_packed_sequence(packed, batch_first=True, total_length=total_length)
        return self.restore(out)

    def restore(self, y: torch.Tensor, dim: int = 0) -> torch.Tensor:
        """Back to the caller's order along `dim` (the batch dimension)."""
        return y.index_select(dim, self.order)


def length_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    """[B, T] bool, True at real tokens."""
    return torch.arange(max_len, device=lengths.device)[None, :] < lengths[:, None]
