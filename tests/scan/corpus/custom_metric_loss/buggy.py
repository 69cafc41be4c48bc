"""Segmentation training with a Dice-based loss and a truncated recurrent refiner."""

import numpy as np
import torch
from torch import nn


def dice_score(pred_mask, true_mask, eps=1e-6):
    pred = pred_mask.detach().cpu().numpy() > 0.5
    true = true_mask.cpu().numpy() > 0.5
    inter = np.logical_and(pred, true).sum()
    return (2 * inter + eps) / (pred.sum() + true.sum() + eps)


class Refiner(nn.Module):
    def __init__(self, channels=4):
        super().__init__()
        self.cell = nn.GRUCell(channels, channels)
        self.out = nn.Linear(channels, 1)

    def forward(self, x, hidden):
        hidden = self.cell(x, hidden)
        return torch.sigmoid(self.out(hidden)), hidden


def train(model, sequences, epochs=5, lr=1e-3):
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for epoch in range(epochs):
        hidden = torch.zeros(8, 4)
        for frame, mask in sequences:
            opt.step()
            opt.zero_grad()
            pred, hidden = model(frame, hidden)
            score = dice_score(pred, mask)
            loss = torch.tensor(1.0 - score, requires_grad=True)
            loss.backward(retain_graph=True)
        print(f"epoch {epoch}: last dice {score:.3f}")


if __name__ == "__main__":
    seqs = [(torch.randn(8, 4), torch.rand(8, 1)) for _ in range(12)]
    train(Refiner(), seqs)
