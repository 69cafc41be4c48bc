import torch
import torch.nn as nn


class TokenConfidence(nn.Module):
    """Predicts, per keypoint token, whether the current layer's match already equals the final one."""

    def __init__(self, dim):
        super().__init__()
        self.token = nn.Sequential(nn.Linear(dim, 1))
        self.loss_fn = nn.BCEWithLogitsLoss(reduction="none")

    def forward(self, desc0, desc1):
        return (
            torch.sigmoid(self.token(desc0.detach()).squeeze(-1)),
            torch.sigmoid(self.token(desc1.detach()).squeeze(-1)),
        )

    def loss(self, desc0, desc1, scores_now, scores_final):
        out0 = self.token(desc0.detach()).squeeze(-1)
        out1 = self.token(desc1.detach()).squeeze(-1)
        scores_now, scores_final = scores_now.detach(), scores_final.detach()
        same0 = scores_final[:, :-1, :].max(-1).indices == scores_now[:, :-1, :].max(-1).indices
        same1 = scores_final[:, :, :-1].max(-2).indices == scores_now[:, :, :-1].max(-2).indices
        return (
            self.loss_fn(out0, same0.float()).mean(-1)
            + self.loss_fn(out1, same1.float()).mean(-1)
        ) / 2.0
