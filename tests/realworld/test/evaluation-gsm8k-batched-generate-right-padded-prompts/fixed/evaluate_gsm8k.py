import json
import os

import torch
from transformers import AutoModelForCausalLM, HfArgumentParser

from config import EvalConfig
from gsm8k import build_prompt, is_correct, load_examples
from tokenization import load_tokenizer


def batched(items, size):
    for start in range(0, len(items), size):
        yield items[start:start + size]


@torch.no_grad()
def generate_batch(model, tokenizer, prompts, cfg):
    inputs = tokenizer(
        prompts,
        return_tensors="pt",
        padding=True,
        truncation=True,
        max_length=cfg.max_prompt_length,
    ).to(model.device)
    outputs = model.generate(
        **inputs,
        max_new_tokens=cfg.max_new_tokens,
        do_sample=False,
        pad_token_id=tokenizer.pad_token_id,
    )
    new_tokens = outputs[:, inputs["input_ids"].shape[1]:]
    return tokenizer.batch_decode(new_tokens, skip_special_tokens=True)


def main():
    (cfg,) = HfArgumentParser(EvalConfig).parse_args_into_dataclasses()
    tokenizer = load_tokenizer(cfg.model_name_or_path, padding_side=cfg.padding_side)
    model = AutoModelForCausalLM.from_pretrained(
        cfg.model_name_or_path, torch_dtype=torch.bfloat16, device_map="auto"
    )
    model.eval()

    examples = load_examples(cfg.data_file)
    correct = 0
    os.makedirs(os.path.dirname(cfg.output_file), exist_ok=True)
    with open(cfg.output_file, "w") as out:
        for batch in batched(examples, cfg.batch_size):
            prompts = [build_prompt(ex) for ex in batch]
            completions = generate_batch(model, tokenizer, prompts, cfg)
            for ex, completion in zip(batch, completions):
                ok = is_correct(completion, ex)
                correct += int(ok)
                out.write(json.dumps({"question": ex["question"],
                                      "completion": completion,
                                      "correct": ok}) + "\n")
    print(f"GSM8K accuracy: {correct / len(examples):.4f} ({correct}/{len(examples)})")


if __name__ == "__main__":
    main()
