"""Greedy CTC decoding and edit-distance helpers."""
import torch

from data import LABELS


def levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


class GreedyDecoder:
    def __init__(self, labels=LABELS, blank_index=0):
        self.labels = labels
        self.blank_index = blank_index

    def decode(self, logits, lengths):
        best = torch.argmax(logits, dim=-1)
        out = []
        for seq, n in zip(best, lengths):
            chars, prev = [], None
            for idx in seq[: int(n)].tolist():
                if idx != prev and idx != self.blank_index:
                    chars.append(self.labels[idx])
                prev = idx
            out.append(" ".join("".join(chars).split()))
        return out

    def word_errors(self, hyp, ref):
        return levenshtein(hyp.split(), ref.split())

    def char_errors(self, hyp, ref):
        return levenshtein(hyp.replace(" ", ""), ref.replace(" ", ""))
