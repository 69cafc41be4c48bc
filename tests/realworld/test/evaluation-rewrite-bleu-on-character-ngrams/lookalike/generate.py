import argparse

import torch
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

from data_utils import load_examples


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--model_dir", default="checkpoints/t5-base-canard")
    p.add_argument("--test_file", default="data/canard/test.jsonl")
    p.add_argument("--out_hyp", default="outputs/test.hyp")
    p.add_argument("--out_ref", default="outputs/test.ref")
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--num_beams", type=int, default=4)
    p.add_argument("--max_source_length", type=int, default=512)
    p.add_argument("--max_target_length", type=int, default=64)
    return p.parse_args()


@torch.no_grad()
def main():
    args = parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokenizer = AutoTokenizer.from_pretrained(args.model_dir)
    model = AutoModelForSeq2SeqLM.from_pretrained(args.model_dir).to(device).eval()
    examples = load_examples(args.test_file)
    hyps, refs = [], []
    for i in range(0, len(examples), args.batch_size):
        batch = examples[i:i + args.batch_size]
        enc = tokenizer([b["source"] for b in batch], return_tensors="pt", padding=True,
                        truncation=True, max_length=args.max_source_length).to(device)
        out = model.generate(**enc, num_beams=args.num_beams, max_new_tokens=args.max_target_length)
        hyps.extend(tokenizer.batch_decode(out, skip_special_tokens=True))
        refs.extend(b["target"] for b in batch)
    with open(args.out_hyp, "w", encoding="utf-8") as f:
        f.write("\n".join(h.replace("\n", " ") for h in hyps) + "\n")
    with open(args.out_ref, "w", encoding="utf-8") as f:
        f.write("\n".join(refs) + "\n")


if __name__ == "__main__":
    main()
