"""The ``held-out-data-joined-into-training`` rule (``mlsleuth/scan/rules/data/held_out_data_joined_into_training.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"held-out-data-joined-into-training"}


def test_validation_folder_concatenated_into_training():
    src = """
        from torch.utils.data import ConcatDataset, DataLoader
        from torchvision import datasets

        def loaders(root, aug, plain):
            train_ds = datasets.ImageFolder(root + "/train", transform=aug)
            val_ds = datasets.ImageFolder(root + "/val", transform=plain)
            train_ds = ConcatDataset([train_ds, datasets.ImageFolder(root + "/val", transform=aug)])  # expect: held-out-data-joined-into-training
            return DataLoader(train_ds, shuffle=True), DataLoader(val_ds)

        def cifar(root, aug, plain):
            test_set = datasets.CIFAR10(root, train=False, transform=plain)
            extra = datasets.CIFAR10(root, train=False, transform=aug)
            training = ConcatDataset([datasets.CIFAR10(root, train=True, transform=aug), extra])  # expect: held-out-data-joined-into-training
            return training, test_set
        """
    check(src, RULE)


def test_other_files_or_a_final_fit_stay_silent():
    src = """
        from torch.utils.data import ConcatDataset
        from torchvision import datasets

        def extra_folder(root, aug, plain):
            train_ds = datasets.ImageFolder(f"{root}/train", aug)
            extra_ds = datasets.ImageFolder(f"{root}/train_extra", aug)
            val_ds = datasets.ImageFolder(f"{root}/val", plain)
            return ConcatDataset([train_ds, extra_ds]), val_ds

        def cifar_train_and_test(root, aug, plain):
            train_set = ConcatDataset([datasets.CIFAR10(root, train=True, transform=aug),
                                       datasets.SVHN(root, split="train", transform=aug)])
            test_set = datasets.CIFAR10(root, train=False, transform=plain)
            return train_set, test_set

        def evaluation_union(root, plain):
            val_a = datasets.ImageFolder(f"{root}/val_a", plain)
            val_b = datasets.ImageFolder(f"{root}/val_b", plain)
            return ConcatDataset([val_a, val_b])
        """
    check(src, RULE)
