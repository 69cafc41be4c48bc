"""Batched greedy evaluation of the fine-tuned model on the held-out questions."""
import argparse
import json

import torch
from tqdm import tqdm

from common import EvalConfig, extract_final_number, load_model, load_tokenizer


def read_jsonl(path):
    with open(path) as fh:
        return [json.loads(line) for line in fh if line.strip()]


def batched(items, size):
    for start in range(0, len(items), size):
        yield items[start:start + size]


@torch.no_grad()
def generate_answers(model, tokenizer, prompts, cfg, device):
    answers = []
    for chunk in tqdm(list(batched(prompts, cfg.batch_size)), desc="generate"):
        enc = tokenizer(chunk, return_tensors="pt", padding=True).to(device)
        out = model.generate(
            **enc,
            max_new_tokens=cfg.max_new_tokens,
            do_sample=False,
            pad_token_id=tokenizer.pad_token_id,
        )
        new_tokens = out[:, enc["input_ids"].shape[1]:]
        answers.extend(tokenizer.batch_decode(new_tokens, skip_special_tokens=True))
    return answers


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", default=EvalConfig.model_dir)
    parser.add_argument("--batch_size", type=int, default=EvalConfig.batch_size)
    args = parser.parse_args()
    cfg = EvalConfig(model_dir=args.model_dir, batch_size=args.batch_size)

    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokenizer = load_tokenizer(cfg.model_dir, padding_side="left")
    model = load_model(cfg.model_dir).to(device).eval()

    rows = read_jsonl(cfg.eval_file)
    prompts = [cfg.prompt_template.format(question=r["question"]) for r in rows]
    completions = generate_answers(model, tokenizer, prompts, cfg, device)

    correct = 0
    for row, completion in zip(rows, completions):
        for stop in cfg.stop_strings:
            completion = completion.split(stop)[0]
        pred = extract_final_number(completion)
        gold = extract_final_number(row["answer"])
        correct += int(pred is not None and pred == gold)
    acc = correct / len(rows)
    print(f"exact match: {acc:.4f} ({correct}/{len(rows)})")
    with open(f"{cfg.model_dir}/eval_results.json", "w") as fh:
        json.dump({"exact_match": acc, "n": len(rows)}, fh, indent=2)


if __name__ == "__main__":
    main()
