"""Shared helpers for the instruction-tuning project (training and evaluation)."""
from dataclasses import dataclass, field

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


@dataclass
class EvalConfig:
    model_dir: str = "outputs/qwen-0.5b-gsm-sft"
    eval_file: str = "data/gsm_test.jsonl"
    batch_size: int = 16
    max_new_tokens: int = 256
    prompt_template: str = "### Question:\n{question}\n\n### Answer:\n"
    stop_strings: list = field(default_factory=lambda: ["### Question:"])


def load_tokenizer(model_dir, padding_side="right"):
    tok = AutoTokenizer.from_pretrained(model_dir)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    tok.padding_side = padding_side
    return tok


def load_model(model_dir, dtype=torch.bfloat16):
    model = AutoModelForCausalLM.from_pretrained(model_dir, torch_dtype=dtype)
    model.config.pad_token_id = model.config.eos_token_id
    return model


def extract_final_number(text):
    tail = text.split("####")[-1]
    digits = "".join(ch for ch in tail if ch.isdigit() or ch in "-.")
    return digits.strip(".") or None
