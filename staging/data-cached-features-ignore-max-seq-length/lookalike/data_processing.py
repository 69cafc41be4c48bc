import csv
import logging
import os
from dataclasses import dataclass

import torch
from torch.utils.data import Dataset

logger = logging.getLogger(__name__)


@dataclass
class InputExample:
    guid: str
    query: str
    passage: str
    label: int


def read_examples(data_dir, split):
    examples = []
    with open(os.path.join(data_dir, f"{split}.tsv"), encoding="utf-8") as f:
        for i, row in enumerate(csv.reader(f, delimiter="\t")):
            if i == 0:
                continue
            examples.append(InputExample(guid=f"{split}-{i}", query=row[0], passage=row[1], label=int(row[2])))
    return examples


def convert_examples_to_features(examples, tokenizer):
    """Full-length word-piece ids; truncation and padding happen per batch in the collator."""
    q = tokenizer([ex.query for ex in examples], add_special_tokens=False)["input_ids"]
    p = tokenizer([ex.passage for ex in examples], add_special_tokens=False)["input_ids"]
    return [{"query_ids": qi, "passage_ids": pi, "label": ex.label} for qi, pi, ex in zip(q, p, examples)]


class PairDataset(Dataset):
    def __init__(self, features):
        self.features = features

    def __len__(self):
        return len(self.features)

    def __getitem__(self, idx):
        return self.features[idx]


def make_collate(tokenizer, max_seq_length):
    def collate(batch):
        encoded = [
            tokenizer.prepare_for_model(f["query_ids"], f["passage_ids"], max_length=max_seq_length,
                                        truncation="only_second", padding="max_length")
            for f in batch
        ]
        return (
            torch.tensor([e["input_ids"] for e in encoded], dtype=torch.long),
            torch.tensor([e["attention_mask"] for e in encoded], dtype=torch.long),
            torch.tensor([e["token_type_ids"] for e in encoded], dtype=torch.long),
            torch.tensor([f["label"] for f in batch], dtype=torch.long),
        )

    return collate


def load_and_cache_examples(args, tokenizer, split):
    cached_features_file = os.path.join(
        args.data_dir,
        "cached_{}_{}".format(split, os.path.basename(args.model_name_or_path.rstrip("/"))),
    )
    if os.path.exists(cached_features_file) and not args.overwrite_cache:
        logger.info("Loading features from cached file %s", cached_features_file)
        features = torch.load(cached_features_file)
    else:
        logger.info("Creating features from dataset file at %s", args.data_dir)
        examples = read_examples(args.data_dir, split)
        features = convert_examples_to_features(examples, tokenizer)
        logger.info("Saving features into cached file %s", cached_features_file)
        torch.save(features, cached_features_file)
    return PairDataset(features)
