import pytorch_lightning as pl
import torch
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import BertTokenizer


class NewsDataModule(pl.LightningDataModule):
    def __init__(self, batch_size=16, max_len=100, pretrained="bert-base-uncased"):
        super().__init__()
        self.batch_size = batch_size
        self.max_len = max_len
        self.tokenizer = BertTokenizer.from_pretrained(pretrained)

    def _encode(self, split):
        ds = load_dataset("ag_news", split=split)
        enc = self.tokenizer(ds["text"], max_length=self.max_len, truncation=True,
                             padding="max_length", return_tensors="pt")
        targets = torch.tensor(ds["label"])
        return [{"input_ids": enc["input_ids"][i], "attention_mask": enc["attention_mask"][i], "targets": targets[i]}
                for i in range(len(targets))]

    def setup(self, stage=None):
        if stage in (None, "fit"):
            full = self._encode("train")
            n_val = len(full) // 20
            self.train_set, self.val_set = full[n_val:], full[:n_val]
        if stage in (None, "test"):
            self.test_set = self._encode("test")

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True, num_workers=4)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=self.batch_size, num_workers=4)

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=self.batch_size, num_workers=4)
