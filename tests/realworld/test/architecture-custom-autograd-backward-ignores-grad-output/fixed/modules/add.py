from torch import nn

from functions import MyAddFunction, MyScaleFunction


class MyAddModule(nn.Module):
    def forward(self, input1, input2):
        return MyAddFunction.apply(input1, input2)


class ScaledResidual(nn.Module):
    """x + scale * f(x) using the fused kernels."""

    def __init__(self, branch: nn.Module, scale: float = 0.2):
        super().__init__()
        self.branch = branch
        self.scale = scale
        self.add = MyAddModule()

    def forward(self, x):
        return self.add(x, MyScaleFunction.apply(self.branch(x), self.scale))
