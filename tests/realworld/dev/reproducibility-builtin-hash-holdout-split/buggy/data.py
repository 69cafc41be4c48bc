import json

import torch
from torch.utils.data import Dataset


def load_records(path="data/ecg_records.jsonl"):
    with open(path) as f:
        return [json.loads(line) for line in f]


def in_holdout(patient_id, holdout_pct=20):
    return hash(patient_id) % 100 < holdout_pct


def split_records(records):
    train = [r for r in records if not in_holdout(r["patient_id"])]
    holdout = [r for r in records if in_holdout(r["patient_id"])]
    return train, holdout


class ECGDataset(Dataset):
    def __init__(self, records):
        self.records = records

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        r = self.records[i]
        return torch.tensor(r["signal"], dtype=torch.float32), int(r["label"])
