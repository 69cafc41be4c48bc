"""The ``dummies-encoded-per-split`` rule (``mlsleuth/scan/rules/data/dummies_encoded_per_split.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"dummies-encoded-per-split"}


def test_train_and_test_encoded_separately_at_top_level():
    src = """
        import pandas as pd
        from sklearn.ensemble import RandomForestClassifier

        train = pd.read_csv("train.csv")
        test = pd.read_csv("test.csv")
        X_train = pd.get_dummies(train.drop(columns="target"))
        X_test = pd.get_dummies(test)  # expect: dummies-encoded-per-split
        clf = RandomForestClassifier().fit(X_train, train["target"])
        """
    check(src, RULE)


def test_alias_columns_argument_and_validation_frame_in_a_function():
    src = """
        import numpy as np
        import pandas
        import torch

        CAT = ["city", "device"]

        def featurize(df_train, df_valid):
            tr = pandas.get_dummies(df_train, columns=CAT, dtype=float)
            va = pandas.get_dummies(data=df_valid, columns=CAT, dtype=float)  # expect: dummies-encoded-per-split
            return torch.tensor(tr.values), torch.tensor(va.values)

        def other(frames):
            from pandas import get_dummies
            a = get_dummies(frames["train"][CAT])
            b = get_dummies(frames["test"][CAT])  # expect: dummies-encoded-per-split
            return a, b
        """
    check(src, RULE)


def test_aligned_concatenated_or_fitted_encodings_stay_silent():
    aligned = """
        import pandas as pd
        X_train = pd.get_dummies(train)
        X_test = pd.get_dummies(test).reindex(columns=X_train.columns, fill_value=0)
        """
    aligned2 = """
        import pandas as pd
        X_train = pd.get_dummies(train)
        X_test = pd.get_dummies(test)
        X_train, X_test = X_train.align(X_test, join="left", axis=1, fill_value=0)
        """
    concatenated = """
        import pandas as pd
        full = pd.concat([train, test])
        enc = pd.get_dummies(full)
        X_train, X_test = enc[:len(train)], enc[len(train):]
        """
    fixed_categories = """
        import pandas as pd
        for df in (train, test):
            df["city"] = pd.Categorical(df["city"], categories=CITIES)
        X_train = pd.get_dummies(train)
        X_test = pd.get_dummies(test)
        """
    separate_functions = """
        import pandas as pd

        def encode_train(train):
            return pd.get_dummies(train)

        def report(test):
            return pd.get_dummies(test).sum()
        """
    one_split = """
        import pandas as pd
        labels = pd.get_dummies(df["label"])
        X_train = pd.get_dummies(train)
        """
    helper_aligns = """
        import pandas as pd

        class Features:
            def execute(self, train, test):
                train_d = pd.get_dummies(train)
                test_d = pd.get_dummies(test)
                return train_d, self.feature_align(train_d, test_d)
        """
    filled = """
        import pandas as pd
        X_train = pd.get_dummies(train)
        X_test = pd.get_dummies(test)
        for c in set(X_train.columns) - set(X_test.columns):
            X_test[c] = 0
        """
    for src in (aligned, aligned2, concatenated, fixed_categories, separate_functions, one_split, helper_aligns, filled):
        check(src, RULE)
