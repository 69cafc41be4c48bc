from collections import Counter

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

SPECIALS = ["<unk>", "<pad>", "<sos>", "<eos>"]


def read_pairs(prefix):
    with open(prefix + ".de", encoding="utf8") as f_de, open(prefix + ".en", encoding="utf8") as f_en:
        return [(d.lower().split(), e.lower().split()) for d, e in zip(f_de, f_en)]


def build_vocab(sentences, min_freq=2):
    counts = Counter(tok for s in sentences for tok in s)
    itos = SPECIALS + sorted(t for t, c in counts.items() if c >= min_freq)
    return {t: i for i, t in enumerate(itos)}


def numericalize(tokens, vocab):
    ids = [vocab["<sos>"]] + [vocab.get(t, vocab["<unk>"]) for t in tokens] + [vocab["<eos>"]]
    return torch.tensor(ids)


def load_dataset(batch_size, root="./multi30k"):
    train = read_pairs(f"{root}/train")
    val = read_pairs(f"{root}/val")
    test = read_pairs(f"{root}/test")
    de_vocab = build_vocab([d for d, _ in train])
    en_vocab = build_vocab([e for _, e in train])

    def collate(batch):
        src = pad_sequence([numericalize(d, de_vocab) for d, _ in batch], padding_value=de_vocab["<pad>"])
        trg = pad_sequence([numericalize(e, en_vocab) for _, e in batch], padding_value=en_vocab["<pad>"])
        return src, trg

    make = lambda pairs, shuffle: DataLoader(pairs, batch_size=batch_size, shuffle=shuffle, collate_fn=collate)
    return make(train, True), make(val, False), make(test, False), de_vocab, en_vocab
