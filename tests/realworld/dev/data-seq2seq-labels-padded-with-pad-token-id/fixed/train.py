import pandas as pd
import torch
from torch.utils.data import DataLoader
from transformers import BartForConditionalGeneration, BartTokenizer

from data import SummaryDataset


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
    loader = DataLoader(SummaryDataset(df, tok), batch_size=8, shuffle=True)
    optimizer = torch.optim.AdamW(bart.parameters(), lr=3e-5)
    for epoch in range(3):
        train_epoch(bart, loader, optimizer, device)
