"""Everything the trainer needs about one graph: node features, the edges the encoder may
propagate over, supervision edges for training and fixed labelled pairs for val/test."""
import torch

from .splits import edge_keys, sample_negatives, split_edges, to_undirected
from .synth import build_graph


class LinkDataModule:
    def __init__(self, cfg):
        self.cfg = cfg
        self.graph = build_graph(cfg.graph)
        self.num_nodes = self.graph.num_nodes
        self.split = split_edges(self.graph.edge_index, self.num_nodes,
                                 cfg.val_frac, cfg.test_frac, cfg.split_seed)
        self.message_index = to_undirected(self.graph.edge_index)
        self._known = edge_keys(self.graph.edge_index, self.num_nodes)
        self._gen = torch.Generator().manual_seed(cfg.split_seed + 1)

    @property
    def x(self) -> torch.Tensor:
        return self.graph.x

    @property
    def num_features(self) -> int:
        return self.graph.x.shape[1]

    def train_pairs(self):
        """Positive training edges and a fresh set of negatives (drawn every call)."""
        pos = self.split.train_pos
        count = int(self.cfg.neg_ratio * pos.shape[1])
        neg = sample_negatives(self.num_nodes, count, self._known, self._gen)
        return pos, neg

    def eval_pairs(self, stage: str):
        if stage == "val":
            return self.split.val_pos, self.split.val_neg
        if stage == "test":
            return self.split.test_pos, self.split.test_neg
        raise ValueError(stage)

    def summary(self) -> dict:
        s = self.split
        return {"nodes": self.num_nodes, "edges": self.graph.num_edges,
                "train_pos": s.train_pos.shape[1], "val_pos": s.val_pos.shape[1],
                "test_pos": s.test_pos.shape[1]}


def build_datamodule(cfg) -> LinkDataModule:
    return LinkDataModule(cfg)
