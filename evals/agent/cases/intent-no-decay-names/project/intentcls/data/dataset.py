import torch
from torch.utils.data import DataLoader, Dataset

from .synth import generate
from .tokenizer import WordTokenizer


class IntentDataset(Dataset):
    def __init__(self, rows, tokenizer: WordTokenizer, max_len: int):
        self.items = [(tokenizer.encode(text, max_len), label) for text, label in rows]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]


class PadCollator:
    """Right-pads a batch; attention_mask is 1 on real tokens and 0 on padding."""

    def __init__(self, pad_id: int):
        self.pad_id = pad_id

    def __call__(self, batch):
        longest = max(len(ids) for ids, _ in batch)
        input_ids = torch.full((len(batch), longest), self.pad_id, dtype=torch.long)
        attention_mask = torch.zeros((len(batch), longest), dtype=torch.long)
        for row, (ids, _) in enumerate(batch):
            input_ids[row, :len(ids)] = torch.tensor(ids)
            attention_mask[row, :len(ids)] = 1
        labels = torch.tensor([label for _, label in batch])
        return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}


def build_data(cfg):
    rows, names = generate(cfg.n_train + cfg.n_val, seed=cfg.seed, label_noise=cfg.label_noise)
    train_rows, val_rows = rows[:cfg.n_train], rows[cfg.n_train:]
    tokenizer = WordTokenizer.build([t for t, _ in train_rows], min_freq=cfg.min_freq)
    collate = PadCollator(tokenizer.pad_id)
    train = DataLoader(IntentDataset(train_rows, tokenizer, cfg.max_len), batch_size=cfg.batch_size,
                       shuffle=True, collate_fn=collate, generator=torch.Generator().manual_seed(cfg.seed))
    val = DataLoader(IntentDataset(val_rows, tokenizer, cfg.max_len), batch_size=cfg.eval_batch_size,
                     shuffle=False, collate_fn=collate)
    return train, val, tokenizer, names
