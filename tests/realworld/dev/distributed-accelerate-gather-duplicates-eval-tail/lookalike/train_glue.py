import torch
from accelerate import Accelerator
from sklearn.metrics import accuracy_score, f1_score
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification, get_linear_schedule_with_warmup


def evaluate(model, eval_loader, accelerator):
    model.eval()
    all_preds, all_refs = [], []
    samples_seen = 0
    for step, batch in enumerate(eval_loader):
        with torch.no_grad():
            logits = model(**batch).logits
        preds = logits.argmax(dim=-1)
        preds, refs = accelerator.gather((preds, batch["labels"]))
        if accelerator.num_processes > 1:
            if step == len(eval_loader) - 1:
                # the last gathered batch is padded with repeats: keep only the real remainder
                preds = preds[: len(eval_loader.dataset) - samples_seen]
                refs = refs[: len(eval_loader.dataset) - samples_seen]
            else:
                samples_seen += refs.shape[0]
        all_preds.append(preds.cpu())
        all_refs.append(refs.cpu())
    preds, refs = torch.cat(all_preds).numpy(), torch.cat(all_refs).numpy()
    return {"accuracy": accuracy_score(refs, preds), "f1": f1_score(refs, preds)}


def main(train_ds, eval_ds, collate, epochs=3, lr=2e-5):
    accelerator = Accelerator(mixed_precision="fp16")
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased", num_labels=2)
    train_loader = DataLoader(train_ds, shuffle=True, batch_size=32, collate_fn=collate)
    eval_loader = DataLoader(eval_ds, shuffle=False, batch_size=64, collate_fn=collate)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    scheduler = get_linear_schedule_with_warmup(optimizer, 100, epochs * len(train_loader))
    model, optimizer, train_loader, eval_loader, scheduler = accelerator.prepare(
        model, optimizer, train_loader, eval_loader, scheduler)
    for epoch in range(epochs):
        model.train()
        for batch in train_loader:
            loss = model(**batch).loss
            accelerator.backward(loss)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        metrics = evaluate(model, eval_loader, accelerator)
        accelerator.print(f"epoch {epoch}: {metrics}")
