import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from medusa_model import load_medusa
from sharegpt_data import ShareGPTDataset, collate


def medusa_loss(model, input_ids, attention_mask, labels):
    out = model.model(input_ids=input_ids, attention_mask=attention_mask)
    hidden = out.last_hidden_state
    total = 0.0
    for k, head in enumerate(model.medusa_head):
        logits = head(hidden)
        shift = 2 + k
        pred = logits[:, :-shift].reshape(-1, logits.size(-1)).float()
        tgt = labels[:, shift:].reshape(-1)
        total = total + (0.8 ** k) * F.cross_entropy(pred, tgt, ignore_index=-100)
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="meta-llama/Llama-3.2-1B-Instruct")
    ap.add_argument("--data", default="sharegpt.json")
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=2)
    args = ap.parse_args()

    model = load_medusa(args.model, args.heads).cuda()
    opt = torch.optim.AdamW([p for p in model.medusa_head.parameters()], lr=args.lr)
    loader = DataLoader(ShareGPTDataset(args.data, args.model), batch_size=4, shuffle=True, collate_fn=collate)
    for epoch in range(args.epochs):
        for step, batch in enumerate(loader):
            batch = {k: v.cuda() for k, v in batch.items()}
            loss = medusa_loss(model, **batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 50 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
