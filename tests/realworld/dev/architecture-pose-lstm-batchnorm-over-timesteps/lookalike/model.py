import torch
from torch import nn

import config


class PoseLSTM(nn.Module):
    """Sequence of frames [B, T, 36] -> activity logits."""

    def __init__(self, input_dim, hidden_dim, output_dim, layer_num, conv_channels=64):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.frontend = nn.Sequential(
            nn.Conv1d(input_dim, conv_channels, kernel_size=3, padding=1),
            nn.BatchNorm1d(conv_channels),
            nn.ReLU(),
        )
        self.lstm = nn.LSTM(conv_channels, hidden_dim, layer_num, batch_first=True)
        self.head_bn = nn.BatchNorm1d(hidden_dim)
        self.fc = nn.Linear(hidden_dim, output_dim)

    def forward(self, inputs):
        x = self.frontend(inputs.transpose(1, 2)).transpose(1, 2)
        lstm_out, _ = self.lstm(x)
        return self.fc(self.head_bn(lstm_out[:, -1, :]))


def build_model():
    return PoseLSTM(config.N_JOINTS, config.N_HIDDEN, config.N_CATEGORIES, config.N_LAYERS)
