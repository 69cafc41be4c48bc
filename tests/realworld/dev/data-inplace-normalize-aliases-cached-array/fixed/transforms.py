"""Small tensor transforms, applied per sample inside the Dataset."""

import torch


class Compose:
    def __init__(self, steps):
        self.steps = list(steps)

    def __call__(self, x):
        for step in self.steps:
            x = step(x)
        return x


class AddChannel:
    def __call__(self, x):
        return x.unsqueeze(0)


class Normalize:
    """Standardise a [C, H, W] tensor with per-channel mean and std."""

    def __init__(self, mean, std):
        self.mean = torch.as_tensor(mean).view(-1, 1, 1)
        self.std = torch.as_tensor(std).view(-1, 1, 1)

    def __call__(self, x):
        return (x - self.mean) / self.std


class RandomShift:
    def __init__(self, max_shift=2):
        self.max_shift = max_shift

    def __call__(self, x):
        dx, dy = torch.randint(-self.max_shift, self.max_shift + 1, (2,)).tolist()
        return torch.roll(x, shifts=(dy, dx), dims=(-2, -1))
