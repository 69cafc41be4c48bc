import torch.nn as nn

from ..registry import DECODERS, ENCODERS


class LinkModel(nn.Module):
    """Encoder over the message graph + pairwise decoder."""

    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self._adj = None
        self._adj_key = None

    def set_graph(self, edge_index, num_nodes):
        key = (edge_index.data_ptr(), edge_index.shape[1], num_nodes)
        if key != self._adj_key:
            self._adj = self.encoder.adjacency(edge_index, num_nodes)
            self._adj_key = key

    def encode(self, x):
        if self._adj is None:
            raise RuntimeError("call set_graph() before encode()")
        return self.encoder(x, self._adj)

    def forward(self, x, pairs):
        return self.decoder(self.encode(x), pairs)


def build_model(cfg, in_dim):
    enc = ENCODERS.get(cfg.encoder)(in_dim, cfg.hidden, cfg.embed_dim,
                                    num_layers=cfg.num_layers, dropout=cfg.dropout)
    dec = DECODERS.get(cfg.decoder)(cfg.embed_dim)
    return LinkModel(enc, dec)
