"""The ``shared-transform-overridden`` rule (``mlsleuth/scan/rules/data/shared_transform_overridden.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"shared-transform-overridden"}


def test_validation_subset_transform_replaces_the_training_one():
    src = """
        from torch.utils.data import DataLoader, random_split
        from torchvision import datasets, transforms as T

        def build(root):
            train_tf = T.Compose([T.RandomResizedCrop(64), T.RandomHorizontalFlip(), T.ToTensor()])
            eval_tf = T.Compose([T.Resize(72), T.CenterCrop(64), T.ToTensor()])
            data = datasets.ImageFolder(root, transform=train_tf)
            train_split, val_split = random_split(data, [0.9, 0.1])
            val_split.dataset.transform = eval_tf  # expect: shared-transform-overridden
            return DataLoader(train_split, shuffle=True), DataLoader(val_split)
        """
    check(src, RULE)


def test_both_subsets_given_a_transform_through_the_shared_dataset():
    src = """
        from torch.utils.data import random_split
        from torchvision import datasets, transforms as T

        TRAIN_TF = T.Compose([T.RandomRotation(10), T.RandomHorizontalFlip(), T.ToTensor()])
        VAL_TF = T.Compose([T.ToTensor()])

        def classic(root):
            data = datasets.ImageFolder(root)
            train_data, valid_data = random_split(data, [0.8, 0.2])
            train_data.dataset.transform = TRAIN_TF
            valid_data.dataset.transform = VAL_TF  # expect: shared-transform-overridden
            return train_data, valid_data

        def reversed_order(root):
            data = datasets.ImageFolder(root)
            train_data, valid_data = random_split(data, [0.8, 0.2])
            valid_data.dataset.transform = VAL_TF
            train_data.dataset.transform = TRAIN_TF  # expect: shared-transform-overridden
            return train_data, valid_data
        """
    check(src, RULE)


def test_one_transform_module_switched_to_test_mode_after_the_training_set(tmp_path):
    check_project(
        tmp_path,
        {
            "augment.py": """
                import torch
                from torch import nn

                class SpecAugment(nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.stage = "train"

                    def for_stage(self, stage):
                        self.stage = stage
                        return self

                    def forward(self, spec):
                        if self.stage == "train":
                            spec = spec * torch.rand(1)
                        return spec
                """,
            "data.py": """
                from augment import SpecAugment
                from corpus import Clips

                def datasets(root):
                    aug = SpecAugment()
                    train = Clips(root, "train", transform=aug.for_stage("train"))
                    test = Clips(root, "test", transform=aug.for_stage("test"))  # expect: shared-transform-overridden
                    return train, test

                def separate(root):
                    train = Clips(root, "train", transform=SpecAugment().for_stage("train"))
                    evaluation = SpecAugment().for_stage("valid")
                    val = Clips(root, "valid", transform=evaluation)
                    test = Clips(root, "test", transform=evaluation.for_stage("test"))
                    return train, val, test
                """,
        },
        RULE,
    )


def test_nn_module_train_and_eval_return_the_same_object():
    src = """
        from torch import nn

        class Jitter(nn.Module):
            def forward(self, x):
                return x + 0.01 * torch.randn_like(x) if self.training else x

        def build(Frames):
            jitter = Jitter()
            train_set = Frames("train", transform=jitter.train())
            val_set = Frames("val", transform=jitter.eval())  # expect: shared-transform-overridden
            return train_set, val_set
        """
    check(src, RULE)


def test_separate_objects_and_plain_setters_stay_silent():
    src = """
        import copy
        from torch import nn
        from torch.utils.data import random_split
        from torchvision import datasets, transforms as T

        class Mode(nn.Module):
            def __init__(self):
                super().__init__()
                self.mode = "train"

            def set_mode(self, mode):
                self.mode = mode
                return self

            def configure(self, mode):
                self.mode = mode

        def copies(Clips):
            tf = Mode()
            train = Clips("train", transform=copy.deepcopy(tf).set_mode("train"))
            val = Clips("valid", transform=copy.deepcopy(tf).set_mode("valid"))
            return train, val

        def statement_setter(Clips):
            tf = Mode()
            tf.configure("train")
            train = Clips("train", transform=tf)
            return train

        def eval_only(Clips):
            ev = Mode().set_mode("valid")
            val = Clips("valid", transform=ev)
            test = Clips("test", transform=ev.set_mode("test"))
            return val, test

        def test_dataset_transform(root):
            aug = T.Compose([T.RandomCrop(32, padding=4), T.ToTensor()])
            full = datasets.CIFAR10(root, train=True, transform=aug)
            train_set, val_set = random_split(full, [45000, 5000])
            test_set = datasets.CIFAR10(root, train=False)
            test_set.transform = T.Compose([T.ToTensor()])
            val_set.dataset = datasets.CIFAR10(root, train=True, transform=T.Compose([T.ToTensor()]))
            return train_set, val_set, test_set

        def model_modes(trainer, net: Mode):
            net = Mode()
            trainer.fit(net.train())
            trainer.validate(net.eval())

        def both_augmenting(root):
            aug = T.Compose([T.RandomCrop(32, padding=4), T.ToTensor()])
            full = datasets.CIFAR10(root, train=True, transform=aug)
            train_set, val_set = random_split(full, [45000, 5000])
            val_set.dataset.transform = aug
            return train_set, val_set
        """
    check(src, RULE)
