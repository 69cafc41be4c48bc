"""Bug: a Trainer subclass overrides compute_loss and scores outputs.logits[:, t] against labels[:, t].

The labels are the input ids (pads set to -100), so without a shift every position learns to copy its own
input token and the loss collapses. Modelled on public custom-Trainer loss code such as the MambaTrainer
discussed in state-spaces/mamba issue #24 (there the shift was present; here it is forgotten).
"""

import random

import torch
import torch.nn.functional as F
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

torch.manual_seed(0)
random.seed(0)
VOCAB, PAD = 100, 0


class Sentences(torch.utils.data.Dataset):
    def __init__(self, n):
        self.rows = []
        for _ in range(n):
            start, length = random.randint(1, 50), random.randint(8, 24)
            self.rows.append([1 + (start + 3 * i) % (VOCAB - 1) for i in range(length)])

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return {"input_ids": self.rows[i]}


def collate(examples):
    longest = max(len(e["input_ids"]) for e in examples)
    ids = torch.full((len(examples), longest), PAD, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for row, e in enumerate(examples):
        ids[row, : len(e["input_ids"])] = torch.tensor(e["input_ids"])
        mask[row, : len(e["input_ids"])] = 1
    return {"input_ids": ids, "attention_mask": mask, "labels": ids.masked_fill(mask == 0, -100)}


class TokenLossTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits = outputs.logits
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1), ignore_index=-100)
        return (loss, outputs) if return_outputs else loss


config = GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=VOCAB, n_positions=64, pad_token_id=PAD)
model = GPT2LMHeadModel(config)
args = TrainingArguments(output_dir="/tmp/mlsleuth-hf-noshift", per_device_train_batch_size=8, max_steps=20,
                         learning_rate=3e-3, logging_steps=10, save_strategy="no", report_to=[], use_cpu=True,
                         disable_tqdm=True)
trainer = TokenLossTrainer(model=model, args=args, train_dataset=Sentences(256), data_collator=collate)
trainer.train()
