import numpy as np


def recall_at_k(r, k, all_pos_num):
    r = np.asarray(r, dtype=np.float64)[:k]
    return np.sum(r) / all_pos_num


def precision_at_k(r, k):
    r = np.asarray(r, dtype=np.float64)[:k]
    return np.mean(r)


def hit_at_k(r, k):
    return 1.0 if np.sum(np.asarray(r)[:k]) > 0 else 0.0


def dcg_at_k(r, k):
    r = np.asarray(r, dtype=np.float64)[:k]
    if r.size == 0:
        return 0.0
    return np.sum(r / np.log2(np.arange(2, r.size + 2)))


def ndcg_at_k(r, k):
    dcg_max = dcg_at_k(sorted(r, reverse=True), k)
    if not dcg_max:
        return 0.0
    return dcg_at_k(r, k) / dcg_max
