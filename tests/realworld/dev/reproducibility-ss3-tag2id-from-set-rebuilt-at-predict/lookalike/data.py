"""Secondary-structure (SS3) data: protein sequences with one tag per residue."""
import random

import torch
from torch.utils.data import Dataset

AMINO = "ACDEFGHIKLMNPQRSTVWY"


def load_split(n_seqs, seed):
    rng = random.Random(seed)
    seqs, labels = [], []
    for _ in range(n_seqs):
        length = rng.randint(20, 60)
        seq = "".join(rng.choice(AMINO) for _ in range(length))
        tags = ["H" if aa in "AELMQK" else "E" if aa in "VIYFWT" else "C" for aa in seq]
        seqs.append(list(seq))
        labels.append(tags)
    return seqs, labels


def build_tag_maps(train_labels):
    unique_tags = set(tag for doc in train_labels for tag in doc)
    tag2id = {tag: id for id, tag in enumerate(unique_tags)}
    id2tag = {id: tag for tag, id in tag2id.items()}
    return tag2id, id2tag


class SS3Dataset(Dataset):
    def __init__(self, seqs, labels, tokenizer, tag2id, max_length=64):
        self.encodings = tokenizer(seqs, is_split_into_words=True, truncation=True,
                                   max_length=max_length, padding="max_length")
        self.labels = []
        for i, doc in enumerate(labels):
            word_ids = self.encodings.word_ids(i)
            self.labels.append([-100 if w is None else tag2id[doc[w]] for w in word_ids])

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        item = {k: torch.tensor(v[idx]) for k, v in self.encodings.items()}
        item["labels"] = torch.tensor(self.labels[idx])
        return item
