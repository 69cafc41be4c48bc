import csv
import logging
import os
from dataclasses import dataclass

import torch
from torch.utils.data import TensorDataset

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


def convert_examples_to_features(examples, tokenizer, max_seq_length):
    enc = tokenizer(
        [ex.query for ex in examples],
        [ex.passage for ex in examples],
        max_length=max_seq_length,
        truncation="only_second",
        padding="max_length",
    )
    return {
        "input_ids": torch.tensor(enc["input_ids"], dtype=torch.long),
        "attention_mask": torch.tensor(enc["attention_mask"], dtype=torch.long),
        "token_type_ids": torch.tensor(enc["token_type_ids"], dtype=torch.long),
        "labels": torch.tensor([ex.label for ex in examples], dtype=torch.long),
    }


def load_and_cache_examples(args, tokenizer, split):
    cached_features_file = os.path.join(
        args.data_dir,
        "cached_{}_{}_{}".format(split, os.path.basename(args.model_name_or_path.rstrip("/")), args.max_seq_length),
    )
    if os.path.exists(cached_features_file) and not args.overwrite_cache:
        logger.info("Loading features from cached file %s", cached_features_file)
        features = torch.load(cached_features_file)
    else:
        logger.info("Creating features from dataset file at %s", args.data_dir)
        examples = read_examples(args.data_dir, split)
        features = convert_examples_to_features(examples, tokenizer, args.max_seq_length)
        logger.info("Saving features into cached file %s", cached_features_file)
        torch.save(features, cached_features_file)
    return TensorDataset(features["input_ids"], features["attention_mask"],
                         features["token_type_ids"], features["labels"])
