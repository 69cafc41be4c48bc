import random

import torch
from torch.utils.data import Dataset, DataLoader
from torch.nn.utils.rnn import pad_sequence

PAD = 0
VOCAB = 20
TRIGGER = 7


class KeywordDataset(Dataset):
    """Token sequences of varying length; label is 1 when the trigger token occurs."""

    def __init__(self, n, seed):
        rng = random.Random(seed)
        self.items = []
        for _ in range(n):
            length = rng.randint(3, 14)
            toks = [rng.randint(1, VOCAB - 1) for _ in range(length)]
            if TRIGGER in toks:
                toks = [t if t != TRIGGER else 8 for t in toks]
            label = rng.random() < 0.5
            if label:
                toks[rng.randrange(length)] = TRIGGER
            self.items.append((torch.tensor(toks), int(label)))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]


def collate_for_packing(batch):
    batch = sorted(batch, key=lambda item: len(item[0]), reverse=True)
    seqs = [seq for seq, _ in batch]
    labels = torch.tensor([label for _, label in batch])
    lengths = torch.tensor([len(s) for s in seqs])
    padded = pad_sequence(seqs, batch_first=True, padding_value=PAD)
    return padded, lengths, labels


def get_loaders(batch_size=32):
    train = KeywordDataset(480, seed=0)
    val = KeywordDataset(192, seed=1)
    return (
        DataLoader(train, batch_size=batch_size, shuffle=True, collate_fn=collate_for_packing),
        DataLoader(val, batch_size=128, shuffle=False, collate_fn=collate_for_packing),
    )
