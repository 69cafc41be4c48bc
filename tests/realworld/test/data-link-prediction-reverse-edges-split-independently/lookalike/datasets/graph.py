import numpy as np


def planted_partition(n_nodes=300, n_blocks=6, p_in=0.08, p_out=0.004, seed=0):
    """Symmetric 0/1 adjacency of an undirected graph with community structure."""
    rng = np.random.default_rng(seed)
    block = rng.integers(0, n_blocks, size=n_nodes)
    same = block[:, None] == block[None, :]
    prob = np.where(same, p_in, p_out)
    upper = np.triu(rng.random((n_nodes, n_nodes)) < prob, k=1)
    adj = (upper | upper.T).astype(np.int8)
    return adj


def adjacency_to_edges(adj):
    """Edge list (E, 2) of every non-zero entry of the adjacency matrix."""
    rows, cols = np.nonzero(adj)
    return np.stack([rows, cols], axis=1)
