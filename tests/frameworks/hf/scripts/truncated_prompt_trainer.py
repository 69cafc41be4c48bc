"""Bug: prompt tokens are masked to -100 and sequences are truncated to MAX_LEN before the answer, so some
batches have no target left; their loss is NaN (or reported as 0) and training silently degrades.

Modelled on public reports: trl issue #6668 (completion-only loss, every label masked after truncation),
ColossalAI issue #5370 and meta-llama/llama-cookbook issue #133 (truncation leaves all labels at -100).
"""

import random

import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

torch.manual_seed(0)
random.seed(0)
VOCAB, PAD, MAX_LEN = 100, 0, 16


class PromptAnswer(torch.utils.data.Dataset):
    def __init__(self, n):
        self.rows = []
        for _ in range(n):
            prompt = [random.randint(1, VOCAB - 1) for _ in range(random.randint(6, 30))]
            answer = [random.randint(1, VOCAB - 1) for _ in range(4)]
            self.rows.append((prompt, answer))

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        prompt, answer = self.rows[i]
        ids = (prompt + answer)[:MAX_LEN]  # truncation cuts the answer of long prompts
        labels = ([-100] * len(prompt) + answer)[:MAX_LEN]
        return {"input_ids": ids, "labels": labels}


def collate(examples):
    longest = max(len(e["input_ids"]) for e in examples)
    ids = torch.full((len(examples), longest), PAD, dtype=torch.long)
    labels = torch.full((len(examples), longest), -100, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for row, e in enumerate(examples):
        n = len(e["input_ids"])
        ids[row, :n] = torch.tensor(e["input_ids"])
        labels[row, :n] = torch.tensor(e["labels"])
        mask[row, :n] = 1
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


config = GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=VOCAB, n_positions=64, pad_token_id=PAD)
model = GPT2LMHeadModel(config)
args = TrainingArguments(output_dir="/tmp/mlsleuth-hf-trunc", per_device_train_batch_size=2, max_steps=20,
                         learning_rate=3e-3, logging_steps=5, save_strategy="no", report_to=[], use_cpu=True,
                         disable_tqdm=True)
trainer = Trainer(model=model, args=args, train_dataset=PromptAnswer(128), data_collator=collate)
trainer.train()
