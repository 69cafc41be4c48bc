import pandas as pd
import torch
from torch.utils.data import DataLoader
from transformers import BartForConditionalGeneration, BartTokenizer

from data import SummaryDataset


def collate(items):
    ids = torch.stack([it["input_ids"] for it in items])
    mask = torch.stack([it["attention_mask"] for it in items])
    labels = torch.nn.utils.rnn.pad_sequence([it["labels"] for it in items], batch_first=True, padding_value=-100)
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def train_epoch(model, loader, optimizer, device):
    model.train()
    for step, batch in enumerate(loader):
        batch = {k: v.to(device) for k, v in batch.items()}
        outputs = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], labels=batch["labels"])
        optimizer.zero_grad()
        outputs.loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(step, outputs.loss.item())


if __name__ == "__main__":
    device = "cuda"
    tok = BartTokenizer.from_pretrained("facebook/bart-base")
    bart = BartForConditionalGeneration.from_pretrained("facebook/bart-base").to(device)
    df = pd.read_csv("news_summary.csv")
    loader = DataLoader(SummaryDataset(df, tok), batch_size=8, shuffle=True, collate_fn=collate)
    optimizer = torch.optim.AdamW(bart.parameters(), lr=3e-5)
    for epoch in range(3):
        train_epoch(bart, loader, optimizer, device)
