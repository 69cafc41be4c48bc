import torch
from torch import nn

import config


class PoseLSTM(nn.Module):
    """Sequence of frames [B, T, 36] -> activity logits."""

    def __init__(self, input_dim, hidden_dim, output_dim, layer_num):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.bn = nn.BatchNorm1d(input_dim)
        self.lstm = nn.LSTM(input_dim, hidden_dim, layer_num, batch_first=True)
        self.fc = nn.Linear(hidden_dim, output_dim)

    def forward(self, inputs):
        x = self.bn(inputs.transpose(1, 2)).transpose(1, 2)
        lstm_out, _ = self.lstm(x)
        return self.fc(lstm_out[:, -1, :])


def build_model():
    return PoseLSTM(config.N_JOINTS, config.N_HIDDEN, config.N_CATEGORIES, config.N_LAYERS)
