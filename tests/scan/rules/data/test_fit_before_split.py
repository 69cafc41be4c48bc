"""The ``fit-before-split`` rule (``mlsleuth/scan/rules/data/fit_before_split.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

BEFORE = "fit-before-split"


def test_fit_before_split_in_a_notebook_style_script():
    src = """
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    df = pd.read_csv("data.csv")
    X = df.drop(columns="y").values
    X = MinMaxScaler().fit_transform(X)  # expect: fit-before-split
    X_train, X_test, y_train, y_test = train_test_split(X, df["y"], test_size=0.2)
    """
    check(src, {BEFORE})


def test_split_then_fit_is_fine():
    src = """
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    def prepare(X, y):
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)
        scaler = StandardScaler()
        X_train = scaler.fit_transform(X_train)
        X_test = scaler.transform(X_test)
        X2 = StandardScaler().fit_transform(X)
        return X_train, X_test, y_train, y_test, X2
    """
    check(src, {BEFORE})


def test_oversampling_before_split():
    src = """
    from imblearn.over_sampling import SMOTE
    from sklearn.model_selection import train_test_split

    def prepare(X, y):
        X_res, y_res = SMOTE(random_state=0).fit_resample(X, y)  # expect: fit-before-split
        return train_test_split(X_res, y_res, test_size=0.25, stratify=y_res)
    """
    (f,) = findings(src, BEFORE)
    check(src, {BEFORE})
    assert "synthetic" in f.message


def test_oversampling_the_training_split_only_is_fine():
    src = """
    from imblearn.over_sampling import SMOTE
    from sklearn.model_selection import train_test_split

    def prepare(X, y):
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y)
        X_train, y_train = SMOTE(random_state=0).fit_resample(X_train, y_train)
        return X_train, X_test, y_train, y_test
    """
    check(src, {BEFORE})


def test_feature_selection_before_cross_validation_and_kfold():
    src = """
    from sklearn.feature_selection import SelectKBest, f_classif
    from sklearn.model_selection import KFold, cross_val_score
    from sklearn.svm import SVC

    def evaluate(X, y):
        X_sel = SelectKBest(f_classif, k=20).fit_transform(X, y)  # expect: fit-before-split
        return cross_val_score(SVC(), X_sel, y, cv=5)

    def folds(X, y, scaler):
        X = scaler.fit_transform(X)  # expect: fit-before-split
        for tr, te in KFold(5).split(X):
            yield tr, te
    """
    check(src, {BEFORE})
    got = findings(src, BEFORE)
    assert any("cross_val_score()" in f.message for f in got)


def test_pipeline_inside_cross_validation_is_fine():
    src = """
    from sklearn.feature_selection import SelectKBest
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    def evaluate(X, y):
        pipe = make_pipeline(StandardScaler(), SelectKBest(k=20), SVC())
        cv = StratifiedKFold(5, shuffle=True, random_state=0)
        for tr, te in cv.split(X, y):
            pipe.fit(X[tr], y[tr])
        return cross_val_score(pipe, X, y, cv=cv)
    """
    check(src, {BEFORE})


def test_hand_written_statistics_over_the_sample_axis_before_random_split():
    src = """
        import numpy as np
        import torch
        from torch.utils.data import TensorDataset, random_split

        def build(x, y):
            mu = x.mean(dim=(0, 2), keepdim=True)  # expect: fit-before-split
            sd = x.std(dim=(0, 2), keepdim=True)
            ds = TensorDataset((x - mu) / sd, y)
            return random_split(ds, [0.8, 0.2])

        def series(values):
            lo = np.min(values, axis=0)  # expect: fit-before-split
            scaled = values - lo
            n = int(len(scaled) * 0.8)
            return scaled[:n], scaled[n:]
        """
    check(src, {"fit-before-split"})


def test_per_sample_or_train_only_statistics_stay_silent():
    src = """
        import torch
        from torch.utils.data import TensorDataset, random_split

        def per_window(x, y):
            mu = x.mean(dim=2, keepdim=True)
            sd = x.std(dim=2, keepdim=True)
            return random_split(TensorDataset((x - mu) / sd, y), [0.8, 0.2])

        def train_only(x, y):
            n = len(x) // 5
            perm = torch.randperm(len(x))
            tr, te = perm[n:], perm[:n]
            mu = x[tr].mean(0)
            return (x[tr] - mu, y[tr]), (x[te] - mu, y[te])

        def shift(seq):
            top = seq.max(0)
            return seq[:-1], seq[1:]
        """
    check(src, {"fit-before-split"})
