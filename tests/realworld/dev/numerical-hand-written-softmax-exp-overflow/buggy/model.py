import torch
import torch.nn as nn

from utils import masked_log_softmax


class SpanHead(nn.Module):
    """Scores every candidate entity in a document graph; the answer is the best-scoring candidate."""

    def __init__(self, d_model=768):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(d_model, d_model), nn.Tanh(), nn.Linear(d_model, 1))

    def forward(self, node_states, candidate_mask):
        return self.proj(node_states).squeeze(-1), candidate_mask


def answer_loss(scores, candidate_mask, answer_idx):
    logp = masked_log_softmax(scores, candidate_mask.float())
    return -logp.gather(1, answer_idx[:, None]).mean()
