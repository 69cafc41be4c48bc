import torch
from torch import nn
from torch.distributions import Categorical


class Encoder(nn.Module):
    def __init__(self, dim=128, n_layers=3, n_heads=8):
        super().__init__()
        self.embed = nn.Linear(2, dim)
        layer = nn.TransformerEncoderLayer(dim, n_heads, dim_feedforward=4 * dim,
                                           batch_first=True, norm_first=True)
        self.layers = nn.TransformerEncoder(layer, n_layers)

    def forward(self, cities):
        return self.layers(self.embed(cities))


class PointerDecoder(nn.Module):
    """Autoregressive pointer over cities not yet visited."""

    def __init__(self, dim=128, clip=10.0):
        super().__init__()
        self.query = nn.GRUCell(dim, dim)
        self.W_ref = nn.Linear(dim, dim, bias=False)
        self.W_q = nn.Linear(dim, dim, bias=False)
        self.v = nn.Linear(dim, 1, bias=False)
        self.clip = clip

    def forward(self, enc, greedy=False):
        batch, n, dim = enc.shape
        mask = torch.zeros(batch, n, dtype=torch.bool, device=enc.device)
        h = enc.mean(dim=1)
        inp = torch.zeros_like(h)
        tours, log_probs = [], []
        ref = self.W_ref(enc)
        for _ in range(n):
            h = self.query(inp, h)
            scores = self.v(torch.tanh(ref + self.W_q(h).unsqueeze(1))).squeeze(-1)
            scores = self.clip * torch.tanh(scores)
            scores = scores.masked_fill(mask, float("-inf"))
            dist = Categorical(logits=scores)
            idx = scores.argmax(-1) if greedy else dist.sample()
            log_probs.append(dist.log_prob(idx))
            tours.append(idx)
            mask = mask.scatter(1, idx.unsqueeze(1), True)
            inp = enc[torch.arange(batch, device=enc.device), idx]
        return torch.stack(tours, 1), torch.stack(log_probs, 1).sum(1)


class Critic(nn.Module):
    """Predicts the expected tour length of the current policy from the encoding."""

    def __init__(self, dim=128):
        super().__init__()
        self.head = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, 1))

    def forward(self, enc):
        return self.head(enc.mean(dim=1)).squeeze(-1)


class ActorCritic(nn.Module):
    def __init__(self, dim=128):
        super().__init__()
        self.encoder = Encoder(dim)
        self.decoder = PointerDecoder(dim)
        self.critic = Critic(dim)

    def forward(self, cities, greedy=False):
        enc = self.encoder(cities)
        tours, log_prob = self.decoder(enc, greedy=greedy)
        predictions = self.critic(enc)
        return tours, log_prob, predictions
