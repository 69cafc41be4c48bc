"""The ``pixels-rescaled-twice`` rule (``mlsleuth/scan/rules/data/pixels_rescaled_twice.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"pixels-rescaled-twice"}


def test_to_tensor_then_divided_again_in_one_compose():
    src = """
        from torchvision import transforms as T

        def to_unit(x):
            return x / 255.0

        train_tf = T.Compose([
            T.RandomHorizontalFlip(),
            T.ToTensor(),
            T.Lambda(lambda x: x / 255),  # expect: pixels-rescaled-twice
            T.Normalize((0.5,), (0.5,)),
        ])
        eval_tf = T.Compose([T.ToTensor(), to_unit, T.Normalize((0.5,), (0.5,))])  # expect: pixels-rescaled-twice
        """
    check(src, RULE)


def test_scaling_once_stays_silent():
    src = """
        import torch
        from torchvision import transforms as T

        tf = T.Compose([T.PILToTensor(), T.Lambda(lambda x: x.float() / 255), T.Normalize((0.5,), (0.5,))])
        plain = T.Compose([T.ToTensor(), T.Normalize((0.5,), (0.5,))])

        def show(x):
            return (x * 255).clamp(0, 255).byte()

        class Frames(torch.utils.data.Dataset):
            def __init__(self, arrays, transform=None):
                self.arrays = arrays
                self.transform = transform

            def __len__(self):
                return len(self.arrays)

            def __getitem__(self, i):
                x = torch.from_numpy(self.arrays[i]).float() / 255.0
                if self.transform is not None:
                    x = self.transform(x)
                return x

        data = Frames([], transform=lambda x: (x - 0.5) / 0.5)
        """
    check(src, RULE)


def test_dataset_scales_and_the_transform_passed_in_another_module_scales_again(tmp_path):
    check_project(tmp_path, {
        "data.py": """
            import torch
            from torch.utils.data import Dataset

            class Digits(Dataset):
                def __init__(self, images, labels, transform=None):
                    self.images, self.labels = images, labels
                    self.transform = transform

                def __len__(self):
                    return len(self.labels)

                def __getitem__(self, i):
                    img = torch.from_numpy(self.images[i]).float().unsqueeze(0) / 255.0
                    if self.transform is not None:
                        img = self.transform(img)
                    return img, int(self.labels[i])
        """,
        "train.py": """
            from data import Digits

            def preprocess(img):
                img = img / 255.0  # expect: pixels-rescaled-twice
                return (img - 0.5) / 0.5

            train_set = Digits(images, labels, transform=preprocess)
        """,
    }, RULE)


def test_helper_divides_an_image_its_caller_already_scaled():
    src = """
        import random

        import cv2
        import numpy as np

        def random_contrast(img, low, high):
            img *= random.uniform(low, high)
            return img

        def random_saturation(img, low, high):
            hsv = cv2.cvtColor(img.astype(np.float32) / 255, cv2.COLOR_BGR2HSV)  # expect: pixels-rescaled-twice
            hsv[..., 1] *= random.uniform(low, high)
            return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)

        def augment(meta, cfg):
            img = meta["img"].astype(np.float32) / 255
            if random.randint(0, 1):
                img = random_contrast(img, *cfg["contrast"])
            img = random_saturation(img, 0.5, 1.5)
            return img
        """
    check(src, RULE)


def test_helper_division_on_raw_pixels_or_constants_stays_silent():
    src = """
        import cv2
        import numpy as np

        def to_unit(img):
            return img.astype(np.float32) / 255

        def normalize(img, mean, std):
            mean = np.array(mean, dtype=np.float32) / 255
            return (img - mean) / (np.array(std, dtype=np.float32) / 255)

        def preview(img):
            return np.clip(img * 255, 0, 255).astype(np.uint8)

        def load(path):
            raw = cv2.imread(path)
            img = to_unit(raw)
            scaled = raw.astype(np.float32) / 255
            back = scaled * 255
            return normalize(img, [123.7, 116.3, 103.5], [58.4, 57.1, 57.4]), to_unit(back), preview(img)
        """
    check(src, RULE)
