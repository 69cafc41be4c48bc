"""The ``normalize-stats-wrong-scale`` rule (``mlsleuth/scan/rules/data/normalize_stats_wrong_scale.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"normalize-stats-wrong-scale"}


def test_pixel_scale_statistics_after_to_tensor():
    src = """
    import torch
    import torchvision.transforms as transforms
    from torchvision.transforms import v2
    from torchvision import transforms as T

    MEAN = [123.675, 116.28, 103.53]
    STD = [58.395, 57.12, 57.375]

    def loaders():
        train_transform = transforms.Compose([
            transforms.ToTensor(),
            transforms.Normalize((127.5, 127.5, 127.5), (127.5, 127.5, 127.5)),  # expect: normalize-stats-wrong-scale
        ])
        eval_transform = T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), T.Normalize(mean=MEAN, std=STD)])  # expect: normalize-stats-wrong-scale
        v2_transform = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True), v2.Normalize(mean=MEAN, std=STD)])  # expect: normalize-stats-wrong-scale
        return train_transform, eval_transform, v2_transform
    """
    check(src, RULE)


def test_unit_scale_statistics_or_no_rescaling_are_fine():
    src = """
    import torch
    import torchvision.transforms as transforms
    from torchvision.transforms import v2

    class ToTensor:
        def __call__(self, pic):
            return torch.from_numpy(pic).permute(2, 0, 1).float()

    def loaders():
        a = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])
        b = transforms.Compose([transforms.Resize(224), transforms.Normalize((127.5, 127.5, 127.5), (127.5, 127.5, 127.5))])
        c = transforms.Compose([ToTensor(), transforms.Normalize([114.7748, 107.7354, 99.4750], [1, 1, 1])])
        d = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32), v2.Normalize(mean=[123.675, 116.28, 103.53], std=[58.395, 57.12, 57.375])])
        e = transforms.Compose([transforms.ToTensor(), transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
        return a, b, c, d, e
    """
    check(src, RULE)
