import numpy as np
import pandas as pd

TARGET = "sales"
LAGS = (1, 7, 14, 28)
WINDOWS = (7, 28)


def add_calendar_features(df):
    df["dow"] = df["date"].dt.dayofweek
    df["month"] = df["date"].dt.month
    df["is_weekend"] = (df["dow"] >= 5).astype(np.float32)
    return df


def add_target_features(df, group_col="store_item"):
    grouped = df.groupby(group_col)[TARGET]
    for lag in LAGS:
        df[f"lag_{lag}"] = grouped.shift(lag)
    df["sales_prev_day"] = grouped.shift(1)
    grouped = df.groupby(group_col)["sales_prev_day"]
    for w in WINDOWS:
        df[f"roll_mean_{w}"] = grouped.transform(lambda s: s.rolling(w, min_periods=1).mean())
        df[f"roll_std_{w}"] = grouped.transform(lambda s: s.rolling(w, min_periods=2).std())
    return df


def add_covariate_features(df):
    df["price_rel"] = df["price"] / df.groupby("store_item")["price"].transform("mean")
    return df


def build_feature_frame(raw):
    df = raw.sort_values(["store_item", "date"]).reset_index(drop=True)
    df = add_calendar_features(df)
    df = add_target_features(df)
    df = add_covariate_features(df)
    return df.dropna().reset_index(drop=True)


FEATURE_COLUMNS = (
    ["dow", "month", "is_weekend", "price_rel", "on_promo"]
    + [f"lag_{l}" for l in LAGS]
    + [f"roll_mean_{w}" for w in WINDOWS]
    + [f"roll_std_{w}" for w in WINDOWS]
)
