import numpy as np
import torch


def recall_ndcg_at_k(topk_items, test_items, k):
    hits = [1.0 if item in test_items else 0.0 for item in topk_items[:k]]
    recall = sum(hits) / min(len(test_items), k)
    dcg = sum(h / np.log2(rank + 2) for rank, h in enumerate(hits))
    idcg = sum(1.0 / np.log2(rank + 2) for rank in range(min(len(test_items), k)))
    return recall, dcg / idcg


def sample_candidates(user, train_items, test_items, num_items, num_negatives, rng):
    """Held-out items of the user plus negatives the user never interacted with."""
    excluded = train_items.get(user, set()) | test_items[user]
    negatives = []
    while len(negatives) < num_negatives:
        j = int(rng.integers(num_items))
        if j not in excluded:
            negatives.append(j)
    return sorted(test_items[user]) + negatives


@torch.no_grad()
def evaluate_topk(model, train_items, test_items, k=20, num_negatives=100, seed=0, device="cpu"):
    model.eval()
    rng = np.random.default_rng(seed)
    num_items = model.item_emb.num_embeddings
    recalls, ndcgs = [], []
    for u in sorted(test_items.keys()):
        candidates = sample_candidates(u, train_items, test_items, num_items, num_negatives, rng)
        cand = torch.tensor(candidates, device=device)
        scores = model.user_emb(torch.tensor([u], device=device)) @ model.item_emb(cand).T
        order = torch.topk(scores[0], k).indices.cpu().numpy()
        topk = [candidates[o] for o in order]
        r, n = recall_ndcg_at_k(topk, test_items[u], k)
        recalls.append(r)
        ndcgs.append(n)
    return float(np.mean(recalls)), float(np.mean(ndcgs))
