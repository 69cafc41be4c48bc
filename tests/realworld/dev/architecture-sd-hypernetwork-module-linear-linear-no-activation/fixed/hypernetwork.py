import torch


class HypernetworkModule(torch.nn.Module):
    multiplier = 1.0

    def __init__(self, dim, state_dict=None, layer_structure=(1, 2, 1)):
        super().__init__()
        linears = []
        for i in range(len(layer_structure) - 1):
            linears.append(torch.nn.Linear(int(dim * layer_structure[i]), int(dim * layer_structure[i + 1])))
            if i < len(layer_structure) - 2:
                linears.append(torch.nn.ReLU())
        self.linear = torch.nn.Sequential(*linears)

        if state_dict is not None:
            self.load_state_dict(state_dict)
        else:
            for layer in self.linear:
                if not isinstance(layer, torch.nn.Linear):
                    continue
                torch.nn.init.normal_(layer.weight, mean=0.0, std=0.01)
                torch.nn.init.zeros_(layer.bias)

    def forward(self, x):
        return x + self.linear(x) * self.multiplier


class Hypernetwork:
    def __init__(self, name=None, enable_sizes=(320, 640, 768, 1280), layer_structure=(1, 2, 1)):
        self.name = name
        self.step = 0
        self.layers = {size: (HypernetworkModule(size, None, layer_structure),
                              HypernetworkModule(size, None, layer_structure)) for size in enable_sizes}

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
