"""Clean look-alike: labels = input_ids.clone() in the dataset, but DataCollatorForLanguageModeling(mlm=False)
rebuilds the labels from input_ids with the pads set to -100, so no pad is trained. Must stay silent.

The tokenizer is a tiny word-level one built in memory (no download).
"""

import random

import torch
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace
from transformers import (DataCollatorForLanguageModeling, GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast, Trainer,
                          TrainingArguments)

torch.manual_seed(0)
random.seed(0)
WORDS = ["[PAD]", "[UNK]"] + [f"w{i}" for i in range(98)]
core = Tokenizer(WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
core.pre_tokenizer = Whitespace()
tok = PreTrainedTokenizerFast(tokenizer_object=core, pad_token="[PAD]", unk_token="[UNK]")

texts = []
for _ in range(256):
    start, length = random.randint(2, 50), random.randint(6, 24)
    texts.append(" ".join(WORDS[2 + (start + 3 * i) % 98] for i in range(length)))


class Texts(torch.utils.data.Dataset):
    def __init__(self, texts):
        self.enc = tok(texts, padding="max_length", truncation=True, max_length=32)

    def __len__(self):
        return len(self.enc["input_ids"])

    def __getitem__(self, i):
        ids = self.enc["input_ids"][i]
        # a padded copy: the collator below rebuilds labels from input_ids with the pads at -100
        return {"input_ids": ids, "attention_mask": self.enc["attention_mask"][i], "labels": list(ids)}


collator = DataCollatorForLanguageModeling(tokenizer=tok, mlm=False)
config = GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=len(WORDS), n_positions=64, pad_token_id=tok.pad_token_id)
model = GPT2LMHeadModel(config)
args = TrainingArguments(output_dir="/tmp/mlsleuth-hf-collator", per_device_train_batch_size=8, max_steps=20,
                         learning_rate=3e-3, logging_steps=10, save_strategy="no", report_to=[], use_cpu=True,
                         disable_tqdm=True)
trainer = Trainer(model=model, args=args, train_dataset=Texts(texts), data_collator=collator)
trainer.train()
