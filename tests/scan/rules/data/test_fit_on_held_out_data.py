"""The ``fit-on-held-out-data`` rule (``mlsleuth/scan/rules/data/fit_on_held_out_data.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

LEAK = "fit-on-held-out-data"


def test_fit_on_test_and_validation_data():
    src = """
    from sklearn.preprocessing import StandardScaler
    from sklearn.decomposition import PCA as Reducer

    scaler = StandardScaler()
    X_train = scaler.fit_transform(X_train)
    X_test = scaler.fit_transform(X_test)  # expect: fit-on-held-out-data

    def project(x_val, train_x):
        pca = Reducer(n_components=8).fit(train_x)
        return Reducer(n_components=8).fit(x_val).transform(x_val)  # expect: fit-on-held-out-data
    """
    check(src, {LEAK})
    got = findings(src, LEAK)
    assert any("StandardScaler" in f.message and "X_test" in f.message for f in got)


def test_transform_on_test_and_model_fit_are_not_leakage():
    src = """
    from sklearn.preprocessing import StandardScaler
    from sklearn.linear_model import LogisticRegression

    scaler = StandardScaler().fit(X_train)
    X_test_s = scaler.transform(X_test)
    clf = LogisticRegression().fit(scaler.transform(X_train), y_train)
    score = clf.score(X_test_s, y_test)
    encoder = make_encoder()
    encoder.fit(test_images)
    """
    check(src, {LEAK})


def test_fit_on_validation_through_self_attribute_and_words():
    src = """
    from sklearn import preprocessing

    class Features:
        def __init__(self):
            self.encoder = preprocessing.OneHotEncoder(handle_unknown="ignore")

        def prepare(self, train_df, valid_df):
            self.encoder.fit(train_df[["city"]])
            self.encoder.fit(valid_df[["city"]])  # expect: fit-on-held-out-data
            return self.encoder.transform(valid_df[["city"]])
    """
    check(src, {LEAK})


def test_fit_on_combined_train_val_data_is_not_called_held_out():
    src = """
    from sklearn.preprocessing import StandardScaler

    def refit(X_trainval, X_test):
        scaler = StandardScaler().fit(X_trainval)
        return scaler.transform(X_test)
    """
    check(src, {LEAK})
