"""Tensor transforms on uint8 HWC arrays -> float CHW tensors."""
import numpy as np
import torch

MEAN = (0.5, 0.5, 0.5)
STD = (0.25, 0.25, 0.25)


class Compose:
    def __init__(self, ts):
        self.ts = list(ts)

    def __call__(self, x, rng):
        for t in self.ts:
            x = t(x, rng)
        return x


class ToFloat:
    def __call__(self, img, rng):
        return torch.from_numpy(img).permute(2, 0, 1).float().div_(255.0)


class RandomCropPad:
    def __init__(self, pad=3):
        self.pad = pad

    def __call__(self, x, rng):
        _, h, w = x.shape
        padded = torch.nn.functional.pad(x[None], (self.pad,) * 4, mode="reflect")[0]
        top, left = rng.integers(0, 2 * self.pad + 1, 2)
        return padded[:, top:top + h, left:left + w]


class RandomHFlip:
    def __call__(self, x, rng):
        return x.flip(-1) if rng.random() < 0.5 else x


class Normalize:
    def __init__(self, mean=MEAN, std=STD):
        self.mean = torch.tensor(mean).view(3, 1, 1)
        self.std = torch.tensor(std).view(3, 1, 1)

    def __call__(self, x, rng):
        return (x - self.mean) / self.std


def build_transform(train: bool, cfg) -> Compose:
    ts = [ToFloat()]
    if train:
        ts += [RandomCropPad(cfg.crop_pad)]
        if cfg.hflip:
            ts.append(RandomHFlip())
    ts.append(Normalize())
    return Compose(ts)


def worker_rng(seed: int, index: int, epoch: int) -> np.random.Generator:
    return np.random.default_rng((seed, epoch, index))
