from torch import nn


class MLP(nn.Module):
    def __init__(self, n_inputs, n_outputs, hparams):
        super().__init__()
        layers = [nn.Linear(n_inputs, hparams["mlp_width"]), nn.Dropout(hparams["mlp_dropout"]), nn.ReLU()]
        for _ in range(hparams["mlp_depth"] - 2):
            layers += [nn.Linear(hparams["mlp_width"], hparams["mlp_width"]),
                       nn.Dropout(hparams["mlp_dropout"]), nn.ReLU()]
        layers.append(nn.Linear(hparams["mlp_width"], n_outputs))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)
