import argparse

import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer

from data_mix import load_mixture


def encode(rows, tok, max_len=512):
    texts = [r["instruction"] + "\n" + r["output"] + tok.eos_token for r in rows]
    enc = tok(texts, max_length=max_len, truncation=True, padding=True, return_tensors="pt")
    enc["labels"] = enc["input_ids"].masked_fill(enc["attention_mask"] == 0, -100)
    return enc


@torch.no_grad()
def val_loss(lm, loader, tok, device):
    lm.eval()
    losses = [lm(**{k: v.to(device) for k, v in encode(b, tok).items()}).loss.item() for b in loader]
    lm.train()
    return sum(losses) / len(losses)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", nargs="+", default=["alpaca_10k.jsonl", "domain_1k.jsonl"])
    ap.add_argument("--model", default="Qwen/Qwen2.5-0.5B")
    args = ap.parse_args()
    device = "cuda"
    tok = AutoTokenizer.from_pretrained(args.model)
    lm = AutoModelForCausalLM.from_pretrained(args.model).to(device)
    train_rows, val_rows = load_mixture(args.data)
    train_dl = DataLoader(train_rows, batch_size=8, shuffle=True, collate_fn=list)
    val_dl = DataLoader(val_rows, batch_size=16, collate_fn=list)
    opt = torch.optim.AdamW(lm.parameters(), lr=2e-5)
    for step, batch in enumerate(train_dl):
        out = lm(**{k: v.to(device) for k, v in encode(batch, tok).items()})
        out.loss.backward()
        opt.step()
        opt.zero_grad()
        if step % 200 == 0:
            print(step, out.loss.item(), val_loss(lm, val_dl, tok, device))


if __name__ == "__main__":
    main()
