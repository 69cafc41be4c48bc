"""The ``duplicated-before-split`` rule (``mlsleuth/scan/rules/data/duplicated_before_split.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"duplicated-before-split"}


def test_helper_that_adds_flipped_copies_before_train_test_split():
    src = """
        import numpy as np
        from sklearn.model_selection import train_test_split

        def with_flips(images, labels):
            flipped = images[:, :, ::-1]
            return np.concatenate([images, flipped]), np.concatenate([labels, labels])

        def prepare(images, labels):
            images, labels = with_flips(images, labels)  # expect: duplicated-before-split
            return train_test_split(images, labels, test_size=0.2)

        def prepare_upsampled(images, labels):
            x, y = upsample_rare_classes(images, labels)  # expect: duplicated-before-split
            return train_test_split(x, y, test_size=0.2)

        def upsample_rare_classes(x, y):
            extra = [x[y == c] for c in np.unique(y)]
            return np.concatenate([x, *extra]), y
        """
    check(src, RULE)


def test_bootstrap_resample_in_another_module_before_kfold(tmp_path):
    check_project(
        tmp_path,
        {
            "balance.py": """
                import numpy as np
                from sklearn.utils import resample

                def rebalance(X, y):
                    pos = y == 1
                    X_pos, y_pos = resample(X[pos], y[pos], n_samples=int((~pos).sum()))
                    return np.vstack([X[~pos], X_pos]), np.concatenate([y[~pos], y_pos])
                """,
            "cv.py": """
                from sklearn.model_selection import StratifiedKFold
                from balance import rebalance

                def cross_validate(X, y, fit):
                    X, y = rebalance(X, y)  # expect: duplicated-before-split
                    for tr, va in StratifiedKFold(5).split(X, y):
                        fit(X[tr], y[tr], X[va], y[va])
                """,
        },
        RULE,
    )


def test_augmented_copies_appended_then_random_split_and_a_cycled_tail_cut():
    src = """
        import itertools
        import torch
        from torch.utils.data import TensorDataset, random_split

        def build(samples, augmentations):
            xs, ys = [], []
            for x, y in samples:
                xs.append(x)
                ys.append(y)
                for aug in augmentations:
                    xs.append(aug(x))  # expect: duplicated-before-split
                    ys.append(y)
            ds = TensorDataset(torch.stack(xs), torch.tensor(ys))
            return random_split(ds, [0.8, 0.2])

        def mixture(small, large):
            cycled = list(itertools.islice(itertools.cycle(small), len(large)))  # expect: duplicated-before-split
            rows = cycled + large
            cut = int(0.9 * len(rows))
            return rows[:cut], rows[cut:]
        """
    check(src, RULE)


def test_split_first_then_augment_and_shift_slices_stay_silent():
    src = """
        import numpy as np
        from sklearn.model_selection import train_test_split

        def augment(x, y, copies):
            xs, ys = [x], [y]
            for _ in range(copies):
                xs.append(x + np.random.normal(size=x.shape))
                ys.append(y)
            return np.concatenate(xs), np.concatenate(ys)

        def prepare(x, y):
            x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.2)
            x_tr, y_tr = augment(x_tr, y_tr, 3)
            return x_tr, x_te, y_tr, y_te

        def lm_pairs(tokens):
            tokens = augment(tokens, tokens, 1)[0]
            return tokens[:-1], tokens[1:]

        def normalised_then_split(x, y):
            x = (x - x.mean()) / x.std()
            return train_test_split(x, y)

        def transformed_each_row(images, labels, jitter):
            out = [jitter(img) for img in images]
            return train_test_split(out, labels)

        def add_columns(x, extra):
            return np.concatenate([x, extra], axis=1)

        def with_features(x, y):
            both = add_columns(x, np.log1p(x))
            return train_test_split(both, y)
        """
    check(src, RULE)
