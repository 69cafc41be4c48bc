import torch
import torch.nn as nn


def mlp(in_size, hidden_size, n_layers):
    channels = [in_size] + n_layers * [hidden_size]
    net = []
    for i in range(n_layers):
        net.append(nn.Linear(channels[i], channels[i + 1]))
        net.append(nn.LayerNorm(channels[i + 1]))
        net.append(nn.LeakyReLU())
    return nn.Sequential(*net)


def gru(n_input, hidden_size):
    return nn.GRU(n_input * hidden_size, hidden_size, batch_first=True)


class DDSP(nn.Module):
    def __init__(self, hidden_size, n_harmonic, n_bands, sampling_rate, block_size):
        super().__init__()
        self.sampling_rate = sampling_rate
        self.block_size = block_size
        self.in_mlps = nn.ModuleList([mlp(1, hidden_size, 3) for _ in range(2)])
        self.gru = gru(2, hidden_size)
        self.out_mlp = mlp(hidden_size + 2, hidden_size, 3)
        self.proj_matrices = nn.ModuleList([
            nn.Linear(hidden_size, n_harmonic + 1),
            nn.Linear(hidden_size, n_bands),
        ])
        self.out_acts = nn.ModuleList([nn.Sigmoid()] * 2)

    def forward(self, pitch, loudness):
        hidden = torch.cat([self.in_mlps[0](pitch), self.in_mlps[1](loudness)], -1)
        hidden = torch.cat([self.gru(hidden)[0], pitch, loudness], -1)
        hidden = self.out_mlp(hidden)
        amplitudes = self.out_acts[0](self.proj_matrices[0](hidden))
        noise_params = self.out_acts[1](self.proj_matrices[1](hidden))
        return amplitudes, noise_params
