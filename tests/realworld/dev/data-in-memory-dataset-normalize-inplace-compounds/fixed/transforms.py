import torch


class Normalize:
    """Per-channel standardisation for CHW float tensors."""

    def __init__(self, mean, std):
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def __call__(self, img):
        return (img - self.mean) / self.std


class Compose:
    def __init__(self, steps):
        self.steps = list(steps)

    def __call__(self, img):
        for step in self.steps:
            img = step(img)
        return img


class RandomHFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        if torch.rand(()) < self.p:
            return img.flip(-1)
        return img
