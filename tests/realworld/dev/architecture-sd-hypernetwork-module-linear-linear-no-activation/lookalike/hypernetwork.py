import torch


class HypernetworkModule(torch.nn.Module):
    multiplier = 1.0

    def __init__(self, dim, state_dict=None, rank=8):
        super().__init__()
        # LoRA-style low-rank update of the context: a linear map by design, factorised as down @ up
        self.linear = torch.nn.Sequential(
            torch.nn.Linear(dim, rank, bias=False),
            torch.nn.Linear(rank, dim),
        )

        if state_dict is not None:
            self.load_state_dict(state_dict)
        else:
            torch.nn.init.normal_(self.linear[0].weight, mean=0.0, std=0.01)
            torch.nn.init.zeros_(self.linear[1].weight)
            torch.nn.init.zeros_(self.linear[1].bias)

    def forward(self, x):
        return x + self.linear(x) * self.multiplier


class Hypernetwork:
    def __init__(self, name=None, enable_sizes=(320, 640, 768, 1280), rank=8):
        self.name = name
        self.step = 0
        self.layers = {size: (HypernetworkModule(size, None, rank),
                              HypernetworkModule(size, None, rank)) for size in enable_sizes}

    def weights(self):
        for k, v in self.layers.items():
            for module in v:
                module.train()
                yield from module.parameters()

    def apply_to_context(self, context):
        modules = self.layers.get(context.shape[2])
        if modules is None:
            return context, context
        return modules[0](context), modules[1](context)
