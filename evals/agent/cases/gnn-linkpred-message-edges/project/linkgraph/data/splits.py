"""Edge-level splits and negative sampling for link prediction."""
from dataclasses import dataclass

import torch


@dataclass
class EdgeSplit:
    train_pos: torch.Tensor  # [2, E_train]
    val_pos: torch.Tensor    # [2, E_val]
    val_neg: torch.Tensor    # [2, E_val]
    test_pos: torch.Tensor   # [2, E_test]
    test_neg: torch.Tensor   # [2, E_test]


def to_undirected(edge_index: torch.Tensor) -> torch.Tensor:
    """Adds the reverse of every edge (message passing needs both directions)."""
    both = torch.cat([edge_index, edge_index.flip(0)], dim=1)
    return torch.unique(both, dim=1)


def edge_keys(edge_index: torch.Tensor, num_nodes: int) -> torch.Tensor:
    """Order-independent integer key of every (u, v) pair."""
    lo = torch.minimum(edge_index[0], edge_index[1])
    hi = torch.maximum(edge_index[0], edge_index[1])
    return lo * num_nodes + hi


def sample_negatives(num_nodes: int, count: int, forbidden: torch.Tensor,
                     generator: torch.Generator) -> torch.Tensor:
    """Draws `count` node pairs that are not self-loops and whose key is not in `forbidden`."""
    forbidden = set(forbidden.tolist())
    out = []
    while len(out) < count:
        cand = torch.randint(0, num_nodes, (2, 2 * count), generator=generator)
        keys = edge_keys(cand, num_nodes).tolist()
        for (u, v), key in zip(cand.t().tolist(), keys):
            if u != v and key not in forbidden:
                forbidden.add(key)
                out.append((u, v))
                if len(out) == count:
                    break
    return torch.tensor(out, dtype=torch.long).t()


def split_edges(edge_index: torch.Tensor, num_nodes: int, val_frac: float, test_frac: float,
                seed: int) -> EdgeSplit:
    gen = torch.Generator().manual_seed(seed)
    perm = torch.randperm(edge_index.shape[1], generator=gen)
    n_val = int(round(val_frac * perm.numel()))
    n_test = int(round(test_frac * perm.numel()))
    val_pos = edge_index[:, perm[:n_val]]
    test_pos = edge_index[:, perm[n_val:n_val + n_test]]
    train_pos = edge_index[:, perm[n_val + n_test:]]

    known = edge_keys(edge_index, num_nodes)
    negs = sample_negatives(num_nodes, n_val + n_test, known, gen)
    return EdgeSplit(train_pos=train_pos, val_pos=val_pos, val_neg=negs[:, :n_val],
                     test_pos=test_pos, test_neg=negs[:, n_val:])
