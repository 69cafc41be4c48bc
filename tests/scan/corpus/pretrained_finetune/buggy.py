"""Two-phase fine-tuning of a pretrained text classifier: head first, then the whole encoder."""

import torch
from torch.nn.utils import clip_grad_norm_
from transformers import AutoModelForSequenceClassification, get_cosine_schedule_with_warmup


def batches(n=40, batch_size=8, seq_len=16):
    for _ in range(n):
        ids = torch.randint(0, 1000, (batch_size, seq_len))
        yield {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": torch.randint(0, 2, (batch_size,))}


def run(epochs=6, unfreeze_at=3, lr=3e-5):
    model = AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased", num_labels=2)
    for param in model.base_model.parameters():
        param.requires_grad = False
    optimizer = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=0.01
    )
    steps_per_epoch = 40
    scheduler = get_cosine_schedule_with_warmup(optimizer, 50, epochs * steps_per_epoch)
    for epoch in range(epochs):
        if epoch == unfreeze_at:
            for param in model.base_model.parameters():
                param.requires_grad = True
        for batch in batches():
            optimizer.zero_grad()
            out = model(**batch)
            out.loss.backward()
            optimizer.step()
            clip_grad_norm_(model.parameters(), 1.0)
        scheduler.step()
        print(f"epoch {epoch} done, lr {scheduler.get_last_lr()[0]:.2e}")
    return model


if __name__ == "__main__":
    run()
