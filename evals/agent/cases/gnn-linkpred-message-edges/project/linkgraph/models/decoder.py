import torch
import torch.nn as nn

from ..registry import DECODERS


@DECODERS.register("dot")
class DotDecoder(nn.Module):
    def __init__(self, dim):
        super().__init__()

    def forward(self, z, pairs):
        return (z[pairs[0]] * z[pairs[1]]).sum(-1)


@DECODERS.register("hadamard_mlp")
class HadamardMLPDecoder(nn.Module):
    def __init__(self, dim, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, z, pairs):
        return self.net(z[pairs[0]] * z[pairs[1]]).squeeze(-1)


def score_pairs(decoder, z, pairs, chunk: int = 65536) -> torch.Tensor:
    return torch.cat([decoder(z, pairs[:, i:i + chunk]) for i in range(0, pairs.shape[1], chunk)])
