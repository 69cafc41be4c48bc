from dataclasses import dataclass, field

import torch
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments


@dataclass
class Args:
    model_name: str = "01-ai/Yi-6B"
    data_path: str = "sft_data.jsonl"
    max_len: int = 1024
    output_dir: str = "out/yi-sft"
    extra: dict = field(default_factory=dict)


PROMPT = "Human: {prompt}\n\nAssistant: "


def build_features(example, tokenizer, max_len):
    text = PROMPT.format(prompt=example["prompt"]) + example["response"] + tokenizer.eos_token
    enc = tokenizer(text, max_length=max_len, padding="max_length", truncation=True)
    enc["labels"] = list(enc["input_ids"])
    return enc


def main():
    args = Args()
    tokenizer = AutoTokenizer.from_pretrained(args.model_name, use_fast=False)
    tokenizer.pad_token = tokenizer.unk_token
    raw = load_dataset("json", data_files=args.data_path)["train"]
    ds = raw.map(lambda ex: build_features(ex, tokenizer, args.max_len), remove_columns=raw.column_names)
    model = AutoModelForCausalLM.from_pretrained(args.model_name, torch_dtype=torch.bfloat16)
    targs = TrainingArguments(args.output_dir, per_device_train_batch_size=2, gradient_accumulation_steps=8,
                              learning_rate=2e-5, num_train_epochs=2, bf16=True, logging_steps=10)
    Trainer(model=model, args=targs, train_dataset=ds, tokenizer=tokenizer).train()


if __name__ == "__main__":
    main()
