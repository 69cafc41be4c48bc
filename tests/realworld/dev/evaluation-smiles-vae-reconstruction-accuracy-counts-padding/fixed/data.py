import re

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset, random_split

SMILES_REGEX = re.compile(r"(\[[^\]]+]|Br?|Cl?|N|O|S|P|F|I|b|c|n|o|s|p|\(|\)|\.|=|#|-|\+|\\|/|:|~|@|\?|>|\*|\$|%[0-9]{2}|[0-9])")
PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"


class SmilesVocab:
    def __init__(self, smiles_list):
        tokens = sorted({t for s in smiles_list for t in SMILES_REGEX.findall(s)})
        self.itos = [PAD, BOS, EOS, UNK] + tokens
        self.stoi = {t: i for i, t in enumerate(self.itos)}

    @property
    def pad_idx(self):
        return self.stoi[PAD]

    def encode(self, smiles):
        ids = [self.stoi.get(t, self.stoi[UNK]) for t in SMILES_REGEX.findall(smiles)]
        return [self.stoi[BOS]] + ids + [self.stoi[EOS]]

    def __len__(self):
        return len(self.itos)


class SmilesDataset(Dataset):
    def __init__(self, smiles_list, vocab, max_len=120):
        self.items = [vocab.encode(s) for s in smiles_list]
        self.items = [x for x in self.items if len(x) <= max_len]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return torch.tensor(self.items[idx], dtype=torch.long)


def make_loaders(path, batch_size=128, val_fraction=0.05, seed=0):
    with open(path) as f:
        smiles = [line.split()[0] for line in f if line.strip()]
    vocab = SmilesVocab(smiles)
    dataset = SmilesDataset(smiles, vocab)
    n_val = int(len(dataset) * val_fraction)
    train_set, val_set = random_split(dataset, [len(dataset) - n_val, n_val],
                                      generator=torch.Generator().manual_seed(seed))

    def collate(batch):
        return pad_sequence(batch, batch_first=True, padding_value=vocab.pad_idx)

    train_loader = DataLoader(train_set, batch_size, shuffle=True, collate_fn=collate, num_workers=4)
    val_loader = DataLoader(val_set, batch_size, shuffle=False, collate_fn=collate, num_workers=4)
    return vocab, train_loader, val_loader
