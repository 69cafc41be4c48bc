"""Whitespace tokenizer and a frequency-ranked vocabulary."""
from __future__ import annotations

import re
from collections import Counter

PAD, UNK = "<pad>", "<unk>"
_TOKEN = re.compile(r"[a-z0-9']+")


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class Vocab:
    def __init__(self, itos: list[str]):
        self.itos = list(itos)
        self.stoi = {w: i for i, w in enumerate(self.itos)}
        self.pad_id = self.stoi[PAD]
        self.unk_id = self.stoi[UNK]

    @classmethod
    def build(cls, texts, max_size: int, min_freq: int = 1) -> "Vocab":
        counts = Counter(tok for t in texts for tok in tokenize(t))
        words = [w for w, c in counts.most_common(max_size) if c >= min_freq]
        return cls([PAD, UNK, *words])

    def encode(self, text: str) -> list[int]:
        return [self.stoi.get(tok, self.unk_id) for tok in tokenize(text)]

    def __len__(self) -> int:
        return len(self.itos)
