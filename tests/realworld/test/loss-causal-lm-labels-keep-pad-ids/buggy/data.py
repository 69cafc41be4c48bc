import torch

PAD_ID = 0
VOCAB = 40
MAX_LEN = 48


def make_corpus(n, seed):
    """Short 'sentences' following a hidden rule (next = 3*prev + 1 mod 39), right-padded to MAX_LEN."""
    g = torch.Generator().manual_seed(seed)
    seqs = []
    for _ in range(n):
        length = int(torch.randint(4, 10, (1,), generator=g))
        tok = int(torch.randint(1, VOCAB, (1,), generator=g))
        seq = []
        for _ in range(length):
            seq.append(tok)
            tok = (3 * tok + 1) % (VOCAB - 1) + 1
        seqs.append(seq)
    return seqs


def collate(seqs):
    input_ids = torch.full((len(seqs), MAX_LEN), PAD_ID, dtype=torch.long)
    attention_mask = torch.zeros_like(input_ids)
    for i, s in enumerate(seqs):
        input_ids[i, : len(s)] = torch.tensor(s)
        attention_mask[i, : len(s)] = 1
    labels = input_ids.clone()
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
