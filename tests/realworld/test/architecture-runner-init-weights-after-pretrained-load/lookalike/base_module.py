import torch
import torch.nn as nn


class BaseModule(nn.Module):
    """Module with a config-driven weight initialisation that runs at most once."""

    def __init__(self, init_cfg=None):
        super().__init__()
        self.init_cfg = init_cfg or {"type": "kaiming"}
        self._is_init = False

    def init_weights(self):
        if self._is_init:
            return
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
        self._is_init = True
