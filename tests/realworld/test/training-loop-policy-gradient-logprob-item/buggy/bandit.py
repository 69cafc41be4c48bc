import torch


class ContextBandit:
    """Each context has one rewarding arm: argmax of a fixed linear score."""

    def __init__(self, n_features=8, n_arms=4, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.w = torch.randn(n_features, n_arms, generator=g)
        self.g = g
        self.n_features = n_features
        self.n_arms = n_arms

    def sample(self):
        return torch.randn(1, self.n_features, generator=self.g)

    def reward(self, ctx, action):
        return 1.0 if int(action) == int((ctx @ self.w).argmax()) else 0.0
