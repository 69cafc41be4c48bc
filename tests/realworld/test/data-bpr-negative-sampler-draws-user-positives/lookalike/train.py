"""BPR matrix factorisation on MovieLens-1M, evaluated with leave-last-out HR@10 / NDCG@10."""
import math

import torch
from torch.utils.data import DataLoader

from data import NegativeSamplingCollate, PositivePairs, load_interactions
from model import MFBPR


@torch.no_grad()
def evaluate(model, train_df, test_df, k=10, device="cpu"):
    seen = train_df.groupby("user").item.apply(list).to_dict()
    hits, ndcg = 0.0, 0.0
    users = torch.tensor(test_df.user.values, device=device)
    targets = test_df.item.values
    for start in range(0, len(users), 1024):
        batch = users[start:start + 1024]
        scores = model.full_scores(batch)
        for row, u in enumerate(batch.tolist()):
            scores[row, seen.get(u, [])] = -float("inf")
        topk = scores.topk(k, dim=1).indices.cpu().tolist()
        for row, items in enumerate(topk):
            target = targets[start + row]
            if target in items:
                hits += 1
                ndcg += 1.0 / math.log2(items.index(target) + 2)
    return hits / len(users), ndcg / len(users)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_df, test_df, n_users, n_items = load_interactions("data/ml-1m/ratings.dat")
    collate = NegativeSamplingCollate(train_df, n_users, n_items)
    loader = DataLoader(PositivePairs(train_df), batch_size=4096, shuffle=True, collate_fn=collate)
    model = MFBPR(n_users, n_items, dim=64).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    for epoch in range(50):
        model.train()
        total = 0.0
        for users, pos, neg in loader:
            users, pos, neg = users.to(device), pos.to(device), neg.to(device)
            loss = model.bpr_loss(users, pos, neg)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        if epoch % 5 == 4:
            hr, ndcg = evaluate(model, train_df, test_df, device=device)
            print(f"epoch {epoch + 1}: loss {total / len(loader):.4f} HR@10 {hr:.4f} NDCG@10 {ndcg:.4f}")


if __name__ == "__main__":
    main()
