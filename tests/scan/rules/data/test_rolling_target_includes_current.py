"""The ``rolling-target-includes-current`` rule (``mlsleuth/scan/rules/data/rolling_target_includes_current.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = "rolling-target-includes-current"


def test_groupby_transform_lambda_next_to_shifted_lags():
    src = """
    TARGET = "sales"

    def add_target_features(df, group_col="store_item"):
        grouped = df.groupby(group_col)[TARGET]
        for lag in (1, 7, 14):
            df[f"lag_{lag}"] = grouped.shift(lag)
        for w in (7, 28):
            df[f"roll_mean_{w}"] = grouped.transform(lambda s: s.rolling(w, min_periods=1).mean())  # expect: rolling-target-includes-current
        return df
    """
    (f,) = findings(src, RULE)
    check(src, {RULE})
    assert "TARGET" in f.message


def test_plain_column_ewm_expanding_and_groupby_rolling():
    src = """
    def features(df):
        df["lag_1"] = df["demand"].shift(1)
        df["ma_7"] = df["demand"].rolling(7).mean()  # expect: rolling-target-includes-current
        df["ewm_7"] = df["demand"].ewm(span=7).mean()  # expect: rolling-target-includes-current
        return df

    def per_store(df, target_col):
        df["roll"] = df.groupby("store")[target_col].rolling(14).mean().reset_index(level=0, drop=True)  # expect: rolling-target-includes-current
        df["cummean"] = df.groupby("store")["target"].expanding().mean().values  # expect: rolling-target-includes-current
        return df
    """
    check(src, {RULE})


def test_negative_shifted_first_or_after_closed_left_covariates_future_target():
    src = """
    TARGET = "sales"

    def shifted(df, g):
        grouped = df.groupby(g)[TARGET]
        df["lag_1"] = grouped.shift(1)
        df["m7"] = grouped.transform(lambda s: s.shift(1).rolling(7).mean())
        df["m28"] = df[TARGET].rolling(28).mean().shift(1)
        df["m14"] = df[TARGET].rolling(14, closed="left").mean()
        df["price_ma"] = df["price"].rolling(7).mean()
        return df

    def prev_day_column(df, g):
        grouped = df.groupby(g)[TARGET]
        df["sales_prev_day"] = grouped.shift(1)
        grouped = df.groupby(g)["sales_prev_day"]
        df["m7"] = grouped.transform(lambda s: s.rolling(7).mean())
        return df

    def next_day_target(df):
        df["y_next"] = df["close"].shift(-1)
        df["close_lag1"] = df["close"].shift(1)
        df["close_ma5"] = df["close"].rolling(5).mean()
        return df

    def smoothed_label(df):
        df["label_smooth"] = df["label"].rolling(3, center=True).mean()
        df["target_ma"] = df["target"].rolling(3).mean()
        return df
    """
    check(src, {RULE})
