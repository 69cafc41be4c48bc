import torch
import torch.nn as nn


class Dice(nn.Module):
    """Data-adaptive activation from the DIN paper.

    Input shape: (batch, emb_size) when dim == 2, (batch, seq, emb_size) when dim == 3.
    """

    def __init__(self, emb_size, dim=2, epsilon=1e-8, device="cpu"):
        super(Dice, self).__init__()
        assert dim == 2 or dim == 3
        self.bn = nn.BatchNorm1d(emb_size, eps=epsilon)
        self.sigmoid = nn.Sigmoid()
        self.dim = dim
        if self.dim == 2:
            self.alpha = nn.Parameter(torch.zeros((emb_size,)).to(device))
        else:
            self.alpha = nn.Parameter(torch.zeros((emb_size, 1)).to(device))

    def forward(self, x):
        assert x.dim() == self.dim
        if self.dim == 2:
            x_p = self.sigmoid(self.bn(x))
            out = self.alpha * (1 - x_p) * x + x_p * x
        else:
            x = torch.transpose(x, 1, 2)
            x_p = self.sigmoid(self.bn(x))
            out = self.alpha * (1 - x_p) * x + x_p * x
            out = torch.transpose(out, 1, 2)
        return out


def activation_layer(act_name, hidden_size=None, dice_dim=2):
    if isinstance(act_name, str):
        name = act_name.lower()
        if name == "sigmoid":
            return nn.Sigmoid()
        if name == "relu":
            return nn.ReLU(inplace=True)
        if name == "prelu":
            return nn.PReLU()
        if name == "dice":
            assert dice_dim
            return Dice(hidden_size, dice_dim)
        raise NotImplementedError(act_name)
    if issubclass(act_name, nn.Module):
        return act_name()
    raise NotImplementedError(act_name)
