"""The ``eval-transform-skips-normalize`` rule (``mlsleuth/scan/rules/data/eval_transform_skips_normalize.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"eval-transform-skips-normalize"}


def test_evaluation_pipeline_without_the_training_normalisation():
    src = """
        import albumentations as A
        from torchvision import datasets, transforms as T

        def loaders(root):
            train_tf = T.Compose([T.RandomCrop(32, padding=4), T.ToTensor(), T.Normalize((0.5,), (0.5,))])
            test_tf = T.Compose([T.ToTensor()])  # expect: eval-transform-skips-normalize
            return datasets.CIFAR10(root, True, train_tf), datasets.CIFAR10(root, False, transform=test_tf)

        def albu(ds_cls):
            train = A.Compose([A.HorizontalFlip(), A.RandomBrightnessContrast()])
            val = A.Compose([A.Resize(256, 256), A.Normalize()])  # expect: eval-transform-skips-normalize
            return ds_cls(transform=train), ds_cls(transform=val)
        """
    check(src, RULE)


def test_matching_pipelines_and_later_additions_stay_silent():
    src = """
        from torchvision import datasets, transforms as T

        MEAN, STD = (0.5,), (0.5,)

        def both(root):
            train_tf = T.Compose([T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(MEAN, STD)])
            test_tf = T.Compose([T.ToTensor(), T.Normalize(MEAN, STD)])
            return datasets.MNIST(root, True, train_tf), datasets.MNIST(root, False, test_tf)

        def appended(root):
            train_tf = T.Compose([T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(MEAN, STD)])
            test_tf = T.Compose([T.ToTensor()])
            test_tf.transforms.append(T.Normalize(MEAN, STD))
            return datasets.MNIST(root, True, train_tf), datasets.MNIST(root, False, test_tf)

        def wrapped(root):
            train_tf = T.Compose([T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(MEAN, STD)])
            base = T.Compose([T.ToTensor()])
            test_tf = T.Compose([base, T.Normalize(MEAN, STD)])
            return datasets.MNIST(root, True, train_tf), datasets.MNIST(root, False, test_tf)

        def for_display(root):
            train_tf = T.Compose([T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(MEAN, STD)])
            show = T.Compose([T.ToTensor()])
            return datasets.MNIST(root, True, train_tf), show

        def normalised_in_the_model(root):
            train_tf = T.Compose([T.RandomHorizontalFlip(), T.ToTensor()])
            test_tf = T.Compose([T.ToTensor()])
            return datasets.MNIST(root, True, train_tf), datasets.MNIST(root, False, test_tf)
        """
    check(src, RULE)
