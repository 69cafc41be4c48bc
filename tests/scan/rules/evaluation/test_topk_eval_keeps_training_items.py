"""The ``topk-eval-keeps-training-items`` rule (``mlsleuth/scan/rules/evaluation/topk_eval_keeps_training_items.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = "topk-eval-keeps-training-items"


def test_full_catalogue_topk_with_unused_train_items():
    src = """
    import numpy as np
    import torch

    @torch.no_grad()
    def evaluate_topk(model, train_items, test_items, k=20):
        users = sorted(test_items)
        scores = model.full_scores(torch.tensor(users))
        topk = torch.topk(scores, k, dim=1).indices.cpu().numpy()  # expect: topk-eval-keeps-training-items
        recalls = [recall_at_k(topk[row].tolist(), test_items[u], k) for row, u in enumerate(users)]
        return float(np.mean(recalls))
    """
    (f,) = findings(src, RULE)
    check(src, {RULE})
    assert "train_items" in f.message


def test_numpy_argsort_and_tensor_method_topk():
    src = """
    import numpy as np

    def hit_ratio(user_factors, item_factors, train_matrix, test_dict, k=10):
        hits = []
        for u, held_out in test_dict.items():
            scores = user_factors[u] @ item_factors.T
            ranked = np.argsort(-scores)[:k]  # expect: topk-eval-keeps-training-items
            hits.append(len(set(ranked) & held_out) > 0)
        return np.mean(hits)

    class Evaluator:
        def ndcg(self, model, user_ids, seen_items, k):
            logits = model(user_ids)
            top = logits.topk(k).indices  # expect: topk-eval-keeps-training-items
            return ndcg_at_k(top, self.truth[user_ids], k)
    """
    check(src, {RULE})


def test_negative_masked_filtered_sampled_or_no_train_data():
    src = """
    import numpy as np
    import torch

    def masked(model, train_items, test_items, k=20):
        users = sorted(test_items)
        scores = model.full_scores(torch.tensor(users))
        for row, u in enumerate(users):
            scores[row, list(train_items.get(u, ()))] = float("-inf")
        topk = torch.topk(scores, k, dim=1).indices
        return recall(topk, test_items, users)

    def filtered(scores, seen_items, truth, k):
        ranked = np.argsort(-scores)
        kept = [i for i in ranked if i not in seen_items][:k]
        return recall(kept, truth)

    def no_train_info(model, test_items, k):
        scores = model.full_scores(torch.arange(len(test_items)))
        return recall(torch.topk(scores, k).indices, test_items)

    def beam(logits, train_steps, k):
        return logits.topk(k)
    """
    check(src, {RULE})
