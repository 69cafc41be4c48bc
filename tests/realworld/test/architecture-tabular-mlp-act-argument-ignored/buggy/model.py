import torch
from torch import nn
from einops import rearrange


class simple_MLP(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(dims[0], dims[1]), nn.ReLU(), nn.Linear(dims[1], dims[2]))

    def forward(self, x):
        if len(x.shape) == 1:
            x = x.view(x.size(0), -1)
        return self.layers(x)


class MLP(nn.Module):
    def __init__(self, dims, act=None):
        super().__init__()
        dims_pairs = list(zip(dims[:-1], dims[1:]))
        layers = []
        for ind, (dim_in, dim_out) in enumerate(dims_pairs):
            is_last = ind >= (len(dims_pairs) - 1)
            layers.append(nn.Linear(dim_in, dim_out))
            if is_last:
                continue
        self.mlp = nn.Sequential(*layers)

    def forward(self, x):
        return self.mlp(x)


class TabAttention(nn.Module):
    def __init__(self, num_categories, num_continuous, dim, depth, heads, dim_out=1, mlp_hidden_mults=(4, 2)):
        super().__init__()
        self.embeds = nn.Embedding(num_categories, dim)
        self.simple_MLP = nn.ModuleList([simple_MLP([1, 100, dim]) for _ in range(num_continuous)])
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, batch_first=True)
        self.transformer = nn.TransformerEncoder(layer, depth)
        n_tokens = num_categories + num_continuous
        input_size = dim * n_tokens
        l = input_size // 8
        hidden_dimensions = [l * t for t in mlp_hidden_mults]
        self.mlp = MLP([input_size, *hidden_dimensions, dim_out], act=nn.ReLU())

    def forward(self, x_categ, x_cont):
        x_c = self.embeds(x_categ)
        x_n = torch.stack([m(x_cont[:, i:i + 1]) for i, m in enumerate(self.simple_MLP)], 1)
        x = self.transformer(torch.cat([x_c, x_n], 1))
        return self.mlp(rearrange(x, "b n d -> b (n d)"))
