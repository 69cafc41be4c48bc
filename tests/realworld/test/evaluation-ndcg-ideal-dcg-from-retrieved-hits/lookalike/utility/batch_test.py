import numpy as np
import torch

from utility import metrics


def ranklist_by_sorted(user_pos_test, rating, ks):
    """Binary relevance of the full item ranking, best score first (the
    metrics cut it at k themselves, and the ideal ordering needs every
    held-out positive, retrieved or not)."""
    order = np.argsort(-rating)
    return [1 if i in user_pos_test else 0 for i in order]


def get_performance(user_pos_test, r, ks):
    precision, recall, ndcg, hit = [], [], [], []
    for k in ks:
        precision.append(metrics.precision_at_k(r, k))
        recall.append(metrics.recall_at_k(r, k, len(user_pos_test)))
        ndcg.append(metrics.ndcg_at_k(r, k))
        hit.append(metrics.hit_at_k(r, k))
    return {"precision": np.array(precision), "recall": np.array(recall),
            "ndcg": np.array(ndcg), "hit_ratio": np.array(hit)}


def test_one_user(rating, training_items, user_pos_test, ks):
    rating = rating.copy()
    rating[training_items] = -np.inf   # never recommend what was trained on
    r = ranklist_by_sorted(user_pos_test, rating, ks)
    return get_performance(user_pos_test, r, ks)


def test(model, data, ks=(10, 20), batch_size=100):
    result = {m: np.zeros(len(ks)) for m in ("precision", "recall", "ndcg", "hit_ratio")}
    users = list(data.test_set.keys())
    model.eval()
    for start in range(0, len(users), batch_size):
        batch = users[start:start + batch_size]
        ratings = model.rating(torch.tensor(batch)).numpy()
        for u, rating in zip(batch, ratings):
            res = test_one_user(rating, data.train_items[u], data.test_set[u], ks)
            for m in result:
                result[m] += res[m] / len(users)
    model.train()
    return result
