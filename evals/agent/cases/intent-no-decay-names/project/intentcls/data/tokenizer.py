"""Word-level tokenizer with a frequency-cut vocabulary built on the training split."""
import re
from collections import Counter

PAD, UNK, CLS = "[PAD]", "[UNK]", "[CLS]"
_WORD = re.compile(r"[a-z0-9]+")


def split_words(text: str):
    return _WORD.findall(text.lower())


class WordTokenizer:
    def __init__(self, itos):
        self.itos = list(itos)
        self.stoi = {tok: i for i, tok in enumerate(self.itos)}
        self.pad_id = self.stoi[PAD]
        self.unk_id = self.stoi[UNK]
        self.cls_id = self.stoi[CLS]

    @classmethod
    def build(cls, texts, min_freq: int = 2, max_size: int = 5000) -> "WordTokenizer":
        counts = Counter(w for t in texts for w in split_words(t))
        words = [w for w, c in counts.most_common(max_size) if c >= min_freq]
        return cls([PAD, UNK, CLS] + sorted(words))

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, text: str, max_len: int):
        ids = [self.cls_id] + [self.stoi.get(w, self.unk_id) for w in split_words(text)]
        return ids[:max_len]
