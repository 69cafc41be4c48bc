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
