import numpy as np
import torch

from datasets.graph import adjacency_to_edges


def roc_auc(pos_scores, neg_scores):
    scores = np.concatenate([pos_scores, neg_scores])
    ranks = scores.argsort().argsort() + 1
    n_pos, n_neg = len(pos_scores), len(neg_scores)
    return (ranks[:n_pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


class LinkPrediction:
    """Hold out a fraction of the edges, embed the rest, score the held-out ones."""

    def __init__(self, adj, test_ratio=0.1, seed=0):
        self.n_nodes = adj.shape[0]
        self.adj = adj
        self.rng = np.random.default_rng(seed)
        edges = adjacency_to_edges(adj)
        perm = self.rng.permutation(len(edges))
        n_test = int(len(edges) * test_ratio)
        self.test_edges = edges[perm[:n_test]]
        self.train_edges = edges[perm[n_test:]]
        self.test_negatives = self._sample_non_edges(len(self.test_edges))

    def _sample_non_edges(self, n):
        out = []
        while len(out) < n:
            u, v = self.rng.integers(0, self.n_nodes, size=2)
            if u != v and self.adj[u, v] == 0:
                out.append((u, v))
        return np.array(out)

    def train(self, model, epochs=150, lr=0.05, batch_size=512):
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        pos_all = torch.as_tensor(self.train_edges, dtype=torch.long)
        for epoch in range(epochs):
            order = torch.randperm(len(pos_all))
            total = 0.0
            for start in range(0, len(order), batch_size):
                pos = pos_all[order[start:start + batch_size]]
                neg = torch.randint(0, self.n_nodes, pos.shape)
                loss = model.loss(pos, neg)
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += loss.item() * len(pos)
            if epoch % 50 == 0 or epoch == epochs - 1:
                print(f"epoch {epoch:3d}  loss {total / len(pos_all):.4f}")

    def evaluate(self, model):
        pos = model.cosine(torch.as_tensor(self.test_edges, dtype=torch.long)).numpy()
        neg = model.cosine(torch.as_tensor(self.test_negatives, dtype=torch.long)).numpy()
        return roc_auc(pos, neg)
