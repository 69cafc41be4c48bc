import torch
import torch.nn as nn

from .activation import activation_layer


class DNN(nn.Module):
    def __init__(self, inputs_dim, hidden_units, activation="relu", dropout_rate=0.0,
                 use_bn=False, init_std=1e-4, dice_dim=2):
        super(DNN, self).__init__()
        hidden_units = [inputs_dim] + list(hidden_units)
        self.dropout = nn.Dropout(dropout_rate)
        self.use_bn = use_bn
        self.linears = nn.ModuleList(
            [nn.Linear(hidden_units[i], hidden_units[i + 1]) for i in range(len(hidden_units) - 1)])
        if use_bn:
            self.bn = nn.ModuleList(
                [nn.BatchNorm1d(hidden_units[i + 1]) for i in range(len(hidden_units) - 1)])
        self.activation_layers = nn.ModuleList(
            [activation_layer(activation, hidden_units[i + 1], dice_dim) for i in range(len(hidden_units) - 1)])
        for name, tensor in self.linears.named_parameters():
            if "weight" in name:
                nn.init.normal_(tensor, mean=0, std=init_std)

    def forward(self, inputs):
        deep_input = inputs
        for i in range(len(self.linears)):
            fc = self.linears[i](deep_input)
            if self.use_bn:
                fc = self.bn[i](fc)
            fc = self.activation_layers[i](fc)
            fc = self.dropout(fc)
            deep_input = fc
        return deep_input


class PredictionLayer(nn.Module):
    def __init__(self, use_bias=True):
        super(PredictionLayer, self).__init__()
        self.use_bias = use_bias
        if self.use_bias:
            self.bias = nn.Parameter(torch.zeros((1,)))

    def forward(self, x):
        if self.use_bias:
            x = x + self.bias
        return x
