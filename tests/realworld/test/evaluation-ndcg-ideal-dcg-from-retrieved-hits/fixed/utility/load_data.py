"""Synthetic implicit-feedback data: users and items share latent tastes and
each user's interactions are split 80/20 into train and test items."""
import numpy as np
import torch


class Data:
    def __init__(self, n_users=300, n_items=500, n_factors=8, per_user=30,
                 batch_size=256, seed=0):
        rng = np.random.default_rng(seed)
        self.n_users, self.n_items, self.batch_size = n_users, n_items, batch_size
        u = rng.standard_normal((n_users, n_factors))
        v = rng.standard_normal((n_items, n_factors))
        affinity = u @ v.T + 0.5 * rng.standard_normal((n_users, n_items))
        self.train_items, self.test_set = {}, {}
        for user in range(n_users):
            liked = np.argsort(-affinity[user])[: per_user]
            liked = rng.permutation(liked)
            cut = int(0.8 * per_user)
            self.train_items[user] = sorted(liked[:cut].tolist())
            self.test_set[user] = sorted(liked[cut:].tolist())
        self.n_train = sum(len(v) for v in self.train_items.values())
        self._rng = rng

    def sample(self):
        """BPR triples (user, positive item, sampled negative item)."""
        users = self._rng.integers(0, self.n_users, self.batch_size)
        pos, neg = [], []
        for u in users:
            items = self.train_items[u]
            pos.append(items[self._rng.integers(len(items))])
            while True:
                j = int(self._rng.integers(self.n_items))
                if j not in items:
                    neg.append(j)
                    break
        return users, np.array(pos), np.array(neg)

    def get_adj_mat(self):
        """Symmetrically normalised user-item bipartite adjacency (sparse)."""
        rows, cols = [], []
        for u, items in self.train_items.items():
            for i in items:
                rows += [u, self.n_users + i]
                cols += [self.n_users + i, u]
        n = self.n_users + self.n_items
        idx = torch.tensor([rows, cols])
        deg = torch.zeros(n).index_add_(0, idx[0], torch.ones(idx.shape[1]))
        d_inv_sqrt = deg.clamp(min=1).pow(-0.5)
        vals = d_inv_sqrt[idx[0]] * d_inv_sqrt[idx[1]]
        return torch.sparse_coo_tensor(idx, vals, (n, n), check_invariants=True).coalesce()
