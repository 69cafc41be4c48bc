"""Synthetic attributed graphs.

`community_graph` draws a latent position for every node around one of several community
centres; the chance of an edge grows with the similarity of the two latent positions. Node
features are a noisy linear view of the latent position, so features alone predict links only
partly and the neighbourhood carries the rest.
"""
from dataclasses import dataclass

import numpy as np
import torch

from ..registry import GRAPHS


@dataclass
class Graph:
    x: torch.Tensor           # [num_nodes, num_features]
    edge_index: torch.Tensor  # [2, num_edges], each undirected edge once, src < dst
    community: torch.Tensor   # [num_nodes]

    @property
    def num_nodes(self) -> int:
        return self.x.shape[0]

    @property
    def num_edges(self) -> int:
        return self.edge_index.shape[1]


@GRAPHS.register("community")
def community_graph(num_nodes=800, num_communities=8, latent_dim=12, num_features=24,
                    avg_degree=8.0, feature_noise=1.5, seed=0) -> Graph:
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 1.0, size=(num_communities, latent_dim))
    community = rng.integers(0, num_communities, size=num_nodes)
    latent = centres[community] + 0.7 * rng.normal(size=(num_nodes, latent_dim))
    latent /= np.linalg.norm(latent, axis=1, keepdims=True)

    affinity = latent @ latent.T
    logits = 6.0 * affinity
    np.fill_diagonal(logits, -np.inf)
    prob = np.exp(logits - logits[np.isfinite(logits)].max())
    iu = np.triu_indices(num_nodes, k=1)
    p = prob[iu]
    p *= (avg_degree * num_nodes / 2.0) / p.sum()
    keep = rng.random(p.shape[0]) < np.clip(p, 0.0, 1.0)
    edges = np.stack([iu[0][keep], iu[1][keep]])

    mixing = rng.normal(size=(latent_dim, num_features)) / np.sqrt(latent_dim)
    feats = latent @ mixing * 3.0 + feature_noise * rng.normal(size=(num_nodes, num_features))
    feats = (feats - feats.mean(0)) / feats.std(0)
    return Graph(x=torch.tensor(feats, dtype=torch.float32),
                 edge_index=torch.tensor(edges, dtype=torch.long),
                 community=torch.tensor(community, dtype=torch.long))


def build_graph(cfg) -> Graph:
    params = {k: v for k, v in cfg.items() if k != "name"}
    return GRAPHS.get(cfg.name)(**params)
