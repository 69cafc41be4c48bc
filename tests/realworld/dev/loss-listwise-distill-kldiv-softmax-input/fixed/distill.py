import torch

from losses import build_loss


def distill_epoch(ranker, loader, optimizer, loss_name="kldiv_list", device="cpu"):
    criterion = build_loss(loss_name)
    ranker.train()
    for batch in loader:
        query = {k: v.to(device) for k, v in batch["query"].items()}
        docs = {k: v.to(device) for k, v in batch["docs"].items()}
        teacher = batch["teacher_scores"].to(device)
        student = ranker(query, docs)  # (batch, list_size)
        loss = criterion(student, teacher)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(ranker.parameters(), 1.0)
        optimizer.step()
