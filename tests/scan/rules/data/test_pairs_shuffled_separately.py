"""The ``pairs-shuffled-separately`` rule (``mlsleuth/scan/rules/data/pairs_shuffled_separately.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"pairs-shuffled-separately"}


def test_inputs_and_labels_drawn_apart():
    src = """
    import random
    import numpy as np
    import torch
    from sklearn.model_selection import train_test_split
    from sklearn.utils import shuffle

    def load(X, y):
        np.random.shuffle(X)
        np.random.shuffle(y)  # expect: pairs-shuffled-separately
        return X, y

    def load_lists(images, masks):
        random.shuffle(images)
        random.shuffle(masks)  # expect: pairs-shuffled-separately
        return images, masks

    def permute(features, targets):
        n = len(features)
        features = features[np.random.permutation(n)]
        targets = targets[np.random.permutation(n)]  # expect: pairs-shuffled-separately
        return features, targets

    def permute_torch(inputs, labels):
        inputs = inputs[torch.randperm(inputs.size(0))]
        labels = labels[torch.randperm(labels.size(0))]  # expect: pairs-shuffled-separately
        return inputs, labels

    def split(X, y):
        X_train, X_test = train_test_split(X, test_size=0.2)
        y_train, y_test = train_test_split(y, test_size=0.2)  # expect: pairs-shuffled-separately
        return X_train, X_test, y_train, y_test

    def split_seeds(data, labels):
        a, b = train_test_split(data, test_size=0.2, random_state=1)
        c, d = train_test_split(labels, test_size=0.2, random_state=2)  # expect: pairs-shuffled-separately
        x_s = shuffle(data)
        y_s = shuffle(labels)  # expect: pairs-shuffled-separately
        return a, b, c, d, x_s, y_s
    """
    check(src, RULE)


def test_one_draw_or_a_restored_generator_is_fine():
    src = """
    import random
    import numpy as np
    import torch
    from sklearn.model_selection import train_test_split

    def one_permutation(X, y):
        idx = np.random.permutation(len(X))
        return X[idx], y[idx]

    def restored(X, y, seed):
        state = np.random.get_state()
        np.random.shuffle(X)
        np.random.set_state(state)
        np.random.shuffle(y)
        np.random.seed(seed)
        np.random.shuffle(X)
        np.random.seed(seed)
        np.random.shuffle(y)
        return X, y

    def same_seed(X, y, args):
        X_train, X_test = train_test_split(X, test_size=0.2, random_state=42)
        y_train, y_test = train_test_split(y, test_size=0.2, random_state=42)
        a, b = train_test_split(X, random_state=args.seed)
        c, d = train_test_split(y, random_state=args.seed)
        return X_train, X_test, y_train, y_test, a, b, c, d

    def unrelated(train_files, val_files, X, y):
        random.shuffle(train_files)
        random.shuffle(val_files)
        together = list(zip(X, y))
        random.shuffle(together)
        return together

    def other_blocks(X, y, flag):
        if flag:
            np.random.shuffle(X)
        else:
            np.random.shuffle(y)
    """
    check(src, RULE)
