"""The ``group-ids-ignored-by-split`` rule (``mlsleuth/scan/rules/data/group_ids_ignored_by_split.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"group-ids-ignored-by-split"}


def test_patient_ids_built_beside_the_rows_then_ignored():
    src = """
        import numpy as np
        from sklearn.model_selection import StratifiedKFold, train_test_split

        def folds(slices, labels, patient_ids, k=5):
            cv = StratifiedKFold(n_splits=k, shuffle=True, random_state=0)
            return list(cv.split(slices, labels))  # expect: group-ids-ignored-by-split

        X, y, speaker_id = load_utterances("corpus/")
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)  # expect: group-ids-ignored-by-split
        """
    check(src, RULE)


def test_group_aware_splits_and_unrelated_ids_stay_silent():
    src = """
        import numpy as np
        from sklearn.model_selection import GroupKFold, GroupShuffleSplit, train_test_split

        def by_song(X, y, song_ids):
            songs = np.unique(song_ids)
            train_songs, _ = train_test_split(songs, test_size=0.2, random_state=0)
            mask = np.isin(song_ids, train_songs)
            return X[mask], X[~mask], y[mask], y[~mask]

        def grouped(X, y, groups):
            return next(GroupShuffleSplit(n_splits=1, test_size=0.2).split(X, y, groups=groups))

        def folds(X, y, subject_ids):
            return list(GroupKFold(5).split(X, y, subject_ids))

        def tokens(input_ids, labels, label_ids):
            return train_test_split(input_ids, labels, test_size=0.1)

        def report(X, y, user_id):
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2)
            print("user", user_id)
            return X_tr, X_te, y_tr, y_te
        """
    check(src, RULE)
