import numpy as np


def load_recordings(n, dim, seed):
    """Stand-in for a small set of spectrogram features with noisy labels."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, dim)).astype(np.float32)
    y = rng.integers(0, 2, size=n)
    return X, y


def augment(X, y, copies, rng):
    xs, ys = [X], [y]
    for _ in range(copies):
        xs.append(X + 0.05 * rng.normal(size=X.shape).astype(np.float32))
        ys.append(y)
    return np.concatenate(xs), np.concatenate(ys)


def train_test_split(X, y, test_frac, rng):
    idx = rng.permutation(len(X))
    cut = int(len(X) * (1 - test_frac))
    return X[idx[:cut]], X[idx[cut:]], y[idx[:cut]], y[idx[cut:]]


def prepare(cfg):
    rng = np.random.default_rng(cfg["seed"])
    X, y = load_recordings(cfg["n"], cfg["dim"], cfg["seed"])
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, 0.2, rng)
    X_tr, y_tr = augment(X_tr, y_tr, cfg["copies"], rng)
    return X_tr, X_te, y_tr, y_te
