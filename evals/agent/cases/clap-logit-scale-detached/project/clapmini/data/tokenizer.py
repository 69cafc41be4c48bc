import re

PAD, UNK = "<pad>", "<unk>"


class WordTokenizer:
    def __init__(self, vocab):
        self.itos = [PAD, UNK] + sorted(set(vocab) - {PAD, UNK})
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    @staticmethod
    def split(text: str):
        return re.findall(r"[a-z]+|[,.]", text.lower())

    @classmethod
    def fit(cls, texts):
        return cls({w for t in texts for w in cls.split(t)})

    def __len__(self):
        return len(self.itos)

    @property
    def pad_id(self) -> int:
        return self.stoi[PAD]

    def encode(self, text: str, max_len: int):
        ids = [self.stoi.get(w, self.stoi[UNK]) for w in self.split(text)][:max_len]
        return ids
