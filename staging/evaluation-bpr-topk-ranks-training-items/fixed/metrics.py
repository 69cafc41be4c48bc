import numpy as np
import torch


def recall_ndcg_at_k(topk_items, test_items, k):
    hits = [1.0 if item in test_items else 0.0 for item in topk_items[:k]]
    recall = sum(hits) / min(len(test_items), k)
    dcg = sum(h / np.log2(rank + 2) for rank, h in enumerate(hits))
    idcg = sum(1.0 / np.log2(rank + 2) for rank in range(min(len(test_items), k)))
    return recall, dcg / idcg


@torch.no_grad()
def evaluate_topk(model, train_items, test_items, k=20, batch_users=1024, device="cpu"):
    model.eval()
    users = sorted(test_items.keys())
    recalls, ndcgs = [], []
    for start in range(0, len(users), batch_users):
        batch = users[start:start + batch_users]
        scores = model.full_scores(torch.tensor(batch, device=device))
        for row, u in enumerate(batch):
            seen = list(train_items.get(u, ()))
            if seen:
                scores[row, seen] = float("-inf")
        topk = torch.topk(scores, k, dim=1).indices.cpu().numpy()
        for row, u in enumerate(batch):
            r, n = recall_ndcg_at_k(topk[row].tolist(), test_items[u], k)
            recalls.append(r)
            ndcgs.append(n)
    return float(np.mean(recalls)), float(np.mean(ndcgs))
