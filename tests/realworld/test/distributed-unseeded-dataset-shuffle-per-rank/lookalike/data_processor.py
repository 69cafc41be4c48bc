import json
import random

import torch
from torch.utils.data import Dataset


class LazySupervisedDataset(Dataset):
    def __init__(self, annotation_paths, processor, max_len=2048):
        super().__init__()
        records = []
        for path in annotation_paths:
            with open(path) as f:
                records.extend(json.load(f))
        random.Random(17).shuffle(records)  # same mixing order on every rank
        self.records = records
        self.processor = processor
        self.max_len = max_len

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        rec = self.records[i]
        enc = self.processor(text=rec["conversation"], images=rec.get("image"), max_length=self.max_len,
                             truncation=True, return_tensors="pt")
        ids = enc["input_ids"][0]
        return {"input_ids": ids, "labels": ids.clone(), "pixel_values": enc.get("pixel_values")}
