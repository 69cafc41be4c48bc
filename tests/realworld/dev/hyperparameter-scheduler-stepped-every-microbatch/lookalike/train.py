import torch
from accelerate import Accelerator
from transformers import get_cosine_schedule_with_warmup


def fit(model, loader, epochs=3, lr=2e-5):
    accelerator = Accelerator()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    total = len(loader) * epochs
    scheduler = get_cosine_schedule_with_warmup(optimizer, int(0.03 * total), total)
    for epoch in range(epochs):
        for batch in loader:
            loss = model(**batch).loss
            accelerator.backward(loss)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
    return model
