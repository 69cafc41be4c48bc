"""The ``augmented-evaluation-data`` rule (``mlsleuth/scan/rules/data/augmented_evaluation_data.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"augmented-evaluation-data"}


def test_validation_transform_aliases_the_augmenting_training_one():
    src = """
        from torchvision import transforms as T

        class Config:
            def __init__(self, size):
                self.train_tf = T.Compose([T.RandomResizedCrop(size), T.RandomHorizontalFlip(), T.ToTensor()])
                self.val_tf = self.train_tf  # expect: augmented-evaluation-data
        """
    check(src, RULE)


def test_training_pipeline_from_a_helper_module(tmp_path):
    check_project(
        tmp_path,
        {
            "augs.py": """
                from torchvision import transforms as T

                def build(size):
                    return T.Compose([T.RandomCrop(size, padding=4), T.ColorJitter(0.2), T.ToTensor()])
                """,
            "data.py": """
                from augs import build

                def transforms_for(size):
                    train_transform = build(size)
                    test_transform = train_transform  # expect: augmented-evaluation-data
                    return train_transform, test_transform
                """,
        },
        RULE,
    )


def test_deterministic_or_separate_evaluation_pipelines_stay_silent():
    src = """
        from torchvision import transforms as T

        def pipelines(size):
            train_tf = T.Compose([T.RandomResizedCrop(size), T.ToTensor()])
            val_tf = T.Compose([T.Resize(size), T.CenterCrop(size), T.ToTensor()])
            plain_train = T.Compose([T.Resize(size), T.ToTensor()])
            test_tf = plain_train
            train_tf = T.Compose([train_tf, T.Normalize((0.5,), (0.5,))])
            return train_tf, val_tf, test_tf
        """
    check(src, RULE)


def test_held_out_subset_of_the_augmented_dataset():
    src = """
        import torch
        from torch.utils.data import DataLoader, Subset, random_split
        from torchvision import datasets, transforms as T

        def loaders(root, val_idx, train_idx):
            aug = T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor()])
            images = datasets.ImageFolder(root, transform=aug)
            trainset = Subset(images, train_idx)
            valset = Subset(images, val_idx)  # expect: augmented-evaluation-data
            return DataLoader(trainset, shuffle=True), DataLoader(valset)

        class Data:
            def setup(self, cfg):
                full = datasets.CIFAR10(cfg.root, transform=T.Compose([T.RandomCrop(32, padding=4), T.ToTensor()]))  # expect: augmented-evaluation-data
                self.train_ds, self.valid_ds = random_split(full, [45000, 5000], generator=torch.Generator().manual_seed(0))
        """
    check(src, RULE)


def test_augmentation_from_a_helper_module_reaches_the_validation_split(tmp_path):
    check_project(
        tmp_path,
        {
            "augs.py": """
                from torchvision import transforms as T

                def make_transforms():
                    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.TrivialAugmentWide(), T.ToTensor()])
                    test_tf = T.Compose([T.ToTensor()])
                    return train_tf, test_tf
                """,
            "data.py": """
                from torch.utils.data import Subset
                from torchvision.datasets import CIFAR100
                from augs import make_transforms

                def splits(root, tr, va):
                    train_tf, test_tf = make_transforms()
                    base = CIFAR100(root, train=True, transform=train_tf)
                    test_set = CIFAR100(root, train=False, transform=test_tf)
                    return Subset(base, tr), test_set

                def splits_with_val(root, tr, va):
                    train_tf, test_tf = make_transforms()
                    base = CIFAR100(root, train=True, transform=train_tf)
                    train_part = Subset(base, tr)
                    val_part = Subset(base, va)  # expect: augmented-evaluation-data
                    return train_part, val_part
                """,
        },
        RULE,
    )


def test_held_out_subsets_with_their_own_dataset_or_on_purpose_stay_silent():
    src = """
        import copy
        from torch.utils.data import Subset, random_split
        from torchvision import datasets, transforms as T

        AUG = T.Compose([T.RandomResizedCrop(96), T.ColorJitter(0.4, 0.4, 0.4), T.ToTensor()])
        PLAIN = T.Compose([T.Resize(96), T.ToTensor()])

        def separate_objects(root, tr, va):
            train_base = datasets.STL10(root, split="train", transform=AUG)
            eval_base = datasets.STL10(root, split="train", transform=PLAIN)
            return Subset(train_base, tr), Subset(eval_base, va)

        def dataset_replaced(root):
            full = datasets.STL10(root, split="train", transform=AUG)
            train_set, val_set = random_split(full, [4500, 500])
            val_set.dataset = copy.copy(full)
            val_set.dataset.transform = PLAIN
            return train_set, val_set

        def deterministic_everywhere(root):
            full = datasets.STL10(root, split="train", transform=PLAIN)
            train_set, val_set = random_split(full, [4500, 500])
            return train_set, val_set

        def contrastive_views(root):
            # SimCLR-style pretraining: the validation loss compares two augmented views on purpose
            full = datasets.STL10(root, split="unlabeled", transform=ContrastiveTransformations(AUG, n_views=2))
            train_set, val_set = random_split(full, [90000, 10000])
            return train_set, val_set

        class ContrastiveTransformations:
            def __init__(self, base, n_views=2):
                self.base, self.n_views = base, n_views

            def __call__(self, x):
                return [self.base(x) for _ in range(self.n_views)]
        """
    check(src, RULE)
