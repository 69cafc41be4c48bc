"""Tokenizer and vocabulary (built on the training split only)."""
from __future__ import annotations

import re
from collections import Counter

TOKEN = re.compile(r"[a-z0-9]+")
PAD, UNK = "<pad>", "<unk>"


def tokenize(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


class Vocab:
    def __init__(self, counts: Counter, min_count: int = 2, max_size: int = 20000):
        words = [w for w, c in counts.most_common(max_size) if c >= min_count]
        self.itos = [PAD, UNK] + sorted(words)
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    @classmethod
    def build(cls, texts, min_count: int = 2, max_size: int = 20000):
        counts = Counter(tok for t in texts for tok in tokenize(t))
        return cls(counts, min_count, max_size)

    def encode(self, text: str) -> list[int]:
        unk = self.stoi[UNK]
        return [self.stoi.get(tok, unk) for tok in tokenize(text)] or [unk]

    def __len__(self):
        return len(self.itos)
