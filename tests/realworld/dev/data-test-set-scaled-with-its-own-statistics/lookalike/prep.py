import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler


def load_frames(path, target="Class"):
    df = pd.read_csv(path)
    return df.drop(columns=[target]), df[target]


def make_splits(path, seed=4):
    X, y = load_frames(path)
    x_train, x_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=seed, stratify=y)
    scaler = StandardScaler()
    x_train = scaler.fit_transform(x_train)
    x_test = scaler.transform(x_test)
    return (x_train.astype(np.float32), x_test.astype(np.float32),
            y_train.values.astype(np.int64), y_test.values.astype(np.int64))
