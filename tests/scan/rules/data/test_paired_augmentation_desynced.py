"""The ``paired-augmentation-desynced`` rule (``mlsleuth/scan/rules/data/paired_augmentation_desynced.py``)."""

from __future__ import annotations

from scan.helpers import check, project_reported, write_project

RULE = {"paired-augmentation-desynced"}


def test_random_transforms_called_separately_on_image_and_target():
    src = """
        import random

        import torchvision.transforms as T
        from torch.utils.data import Dataset

        class RandomCrop:
            def __init__(self, size):
                self.size = size

            def __call__(self, t):
                top = random.randint(0, t.shape[-2] - self.size)
                left = random.randint(0, t.shape[-1] - self.size)
                return t[..., top:top + self.size, left:left + self.size]

        class Seg(Dataset):
            def __init__(self, images, masks):
                self.images, self.masks = images, masks
                self.crop = RandomCrop(14)

            def __getitem__(self, i):
                image = self.crop(self.images[i])
                mask = self.crop(self.masks[i])  # expect: paired-augmentation-desynced
                return image, mask

        class Depth(Dataset):
            def __init__(self, pairs):
                self.pairs = pairs
                self.flip = T.RandomHorizontalFlip()
                self.aug = T.Compose([T.RandomResizedCrop(224), T.ToTensor()])

            def __getitem__(self, i):
                rgb, depth = self.pairs[i]
                return self.aug(rgb), self.aug(depth)  # expect: paired-augmentation-desynced

            def flipped(self, img, seg_map):
                img = self.flip(img)
                seg_map = self.flip(seg_map)  # expect: paired-augmentation-desynced
                return img, seg_map
        """
    check(src, RULE)


def test_transform_class_in_another_module(tmp_path):
    write_project(tmp_path, {
        "aug.py": """
            import numpy as np

            class Jitter:
                def __call__(self, x):
                    k = np.random.randint(4)
                    return x.rot90(k, dims=(-2, -1))
            """,
        "data.py": """
            from aug import Jitter

            class Pairs:
                def __init__(self, xs, ys):
                    self.xs, self.ys = xs, ys
                    self.rot = Jitter()

                def __getitem__(self, i):
                    return self.rot(self.xs[i]), self.rot(self.ys[i])
            """,
    })
    assert {(r, p, line) for r, p, line in project_reported(tmp_path, RULE)} == set()
    write_project(tmp_path, {
        "data.py": """
            from aug import Jitter

            class Pairs:
                def __init__(self, xs, label_maps):
                    self.xs, self.label_maps = xs, label_maps
                    self.rot = Jitter()

                def __getitem__(self, i):
                    return self.rot(self.xs[i]), self.rot(self.label_maps[i])
            """,
    })
    assert {(r, p, line) for r, p, line in project_reported(tmp_path, RULE)} == {("paired-augmentation-desynced", "data.py", 9)}


def test_shared_parameters_reset_rng_or_deterministic_transforms_stay_silent():
    src = """
        import random

        import torch
        import torchvision.transforms as T
        import torchvision.transforms.functional as TF
        from torch.utils.data import Dataset

        class RandomCrop:
            def __init__(self, size):
                self.size = size

            def __call__(self, t):
                top = random.randint(0, t.shape[-2] - self.size)
                return t[..., top:top + self.size, :]

        class Seg(Dataset):
            def __init__(self, images, masks):
                self.images, self.masks = images, masks
                self.crop = RandomCrop(14)
                self.resize = T.Resize(64)
                self.jitter = T.ColorJitter(0.2, 0.2)

            def __getitem__(self, i):
                state = random.getstate()
                image = self.crop(self.images[i])
                random.setstate(state)
                mask = self.crop(self.masks[i])
                return image, mask

            def stacked(self, i):
                pair = torch.cat([self.images[i], self.masks[i][None].float()], dim=0)
                pair = self.crop(pair)
                return pair[:1], pair[1].long()

            def functional(self, img, mask):
                i, j, h, w = T.RandomCrop.get_params(img, (32, 32))
                return TF.crop(img, i, j, h, w), TF.crop(mask, i, j, h, w)

            def deterministic(self, img, mask):
                return self.resize(img), self.resize(mask)

            def photometric_only(self, img, mask):
                return self.jitter(img), mask

            def seeded(self, img, mask, seed):
                torch.manual_seed(seed)
                img = self.crop(img)
                torch.manual_seed(seed)
                return img, self.crop(mask)
        """
    check(src, RULE)
