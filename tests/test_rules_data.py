"""Rules of mlsleuth.scan.rules.data: leakage, unshuffled training loaders, DistributedSampler epochs."""

from __future__ import annotations

from rules_a_helpers import findings, hits, line

LEAK = "fit-on-held-out-data"
BEFORE = "fit-before-split"
SHUFFLE = "train-loader-no-shuffle"
EPOCH = "distributed-sampler-no-set-epoch"


def test_fit_on_test_and_validation_data():
    src = """
    from sklearn.preprocessing import StandardScaler
    from sklearn.decomposition import PCA as Reducer

    scaler = StandardScaler()
    X_train = scaler.fit_transform(X_train)
    X_test = scaler.fit_transform(X_test)  # <- scaler

    def project(x_val, train_x):
        pca = Reducer(n_components=8).fit(train_x)
        return Reducer(n_components=8).fit(x_val).transform(x_val)  # <- pca
    """
    got = findings(src, LEAK)
    assert {f.location.line for f in got} == {line(src, "# <- scaler"), line(src, "# <- pca")}
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
    assert hits(src, LEAK) == set()


def test_fit_before_split_in_a_notebook_style_script():
    src = """
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    df = pd.read_csv("data.csv")
    X = df.drop(columns="y").values
    X = MinMaxScaler().fit_transform(X)  # <-
    X_train, X_test, y_train, y_test = train_test_split(X, df["y"], test_size=0.2)
    """
    assert hits(src, BEFORE) == {(BEFORE, line(src, "# <-"))}


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
    assert hits(src, BEFORE) == set()


def test_training_loader_without_shuffle():
    src = """
    from torch.utils.data import DataLoader

    train_loader = DataLoader(train_ds, batch_size=32, shuffle=False)  # <- named
    loader = DataLoader(dataset, batch_size=64)  # <- loop

    def fit(model, opt, crit):
        for epoch in range(3):
            for x, y in loader:
                opt.zero_grad()
                crit(model(x), y).backward()
                opt.step()
    """
    got = findings(src, SHUFFLE)
    assert {f.location.line for f in got} == {line(src, "# <- named"), line(src, "# <- loop")}
    assert any("training loop" in f.observation for f in got)


def test_eval_loaders_samplers_iterable_datasets_and_shuffled_loaders_are_fine():
    src = """
    import torch
    from torch.utils.data import DataLoader, IterableDataset
    from torch.utils.data.distributed import DistributedSampler

    class Stream(IterableDataset):
        def __iter__(self):
            yield from range(10)

    val_loader = DataLoader(val_ds, batch_size=32, shuffle=False)
    test_loader = DataLoader(test_ds, batch_size=32)
    train_loader = DataLoader(train_ds, batch_size=32, shuffle=True)
    dist_loader = DataLoader(train_ds, batch_size=32, sampler=DistributedSampler(train_ds))
    stream_train_loader = DataLoader(Stream(), batch_size=8)
    cfg_train_loader = DataLoader(train_ds, **cfg)
    pred_loader = DataLoader(dataset, batch_size=64)

    def predict(model):
        with torch.no_grad():
            return [model(x) for x in pred_loader]
    """
    assert hits(src, SHUFFLE) == set()


def test_distributed_sampler_without_set_epoch():
    src = """
    from torch.utils.data import DataLoader, DistributedSampler

    def main(ds, model, opt, epochs):
        sampler = DistributedSampler(ds)  # <-
        loader = DataLoader(ds, batch_size=16, sampler=sampler)
        for epoch in range(epochs):
            for x, y in loader:
                opt.zero_grad()
                model(x).sum().backward()
                opt.step()
    """
    (f,) = findings(src, EPOCH)
    assert f.location.line == line(src, "# <-")
    assert f.category == "distributed"


def test_distributed_sampler_with_set_epoch_or_no_shuffle_or_no_epoch_loop_is_fine():
    with_set_epoch = """
    from torch.utils.data import DataLoader, DistributedSampler

    def main(ds, model, epochs):
        loader = DataLoader(ds, batch_size=16, sampler=DistributedSampler(ds))
        for epoch in range(epochs):
            loader.sampler.set_epoch(epoch)
            for x, y in loader:
                model(x)
    """
    eval_sampler = """
    from torch.utils.data import DataLoader, DistributedSampler

    def evaluate(ds, model, epochs):
        loader = DataLoader(ds, sampler=DistributedSampler(ds, shuffle=False))
        for epoch in range(epochs):
            for x, y in loader:
                model(x)
    """
    framework = """
    from torch.utils.data import DataLoader, DistributedSampler

    def train_dataloader(self):
        return DataLoader(self.ds, sampler=DistributedSampler(self.ds))
    """
    for src in (with_set_epoch, eval_sampler, framework):
        assert hits(src, EPOCH) == set()


def test_fit_on_validation_through_self_attribute_and_words():
    src = """
    from sklearn import preprocessing

    class Features:
        def __init__(self):
            self.encoder = preprocessing.OneHotEncoder(handle_unknown="ignore")

        def prepare(self, train_df, valid_df):
            self.encoder.fit(train_df[["city"]])
            self.encoder.fit(valid_df[["city"]])  # <-
            return self.encoder.transform(valid_df[["city"]])
    """
    assert hits(src, LEAK) == {(LEAK, line(src, "# <-"))}


def test_fit_on_combined_train_val_data_is_not_called_held_out():
    src = """
    from sklearn.preprocessing import StandardScaler

    def refit(X_trainval, X_test):
        scaler = StandardScaler().fit(X_trainval)
        return scaler.transform(X_test)
    """
    assert hits(src, LEAK) == set()


def test_inline_or_feature_extraction_loaders_over_train_data_are_fine():
    src = """
    import torch
    from torch.utils.data import DataLoader

    def extract_features(backbone, train_ds):
        loader = DataLoader(train_ds, batch_size=256)
        with torch.no_grad():
            return torch.cat([backbone(x) for x, _ in loader])

    def embed(backbone, train_ds):
        return [backbone(x) for x, _ in DataLoader(train_ds, batch_size=256)]
    """
    assert hits(src, SHUFFLE) == set()


def test_oversampling_before_split():
    src = """
    from imblearn.over_sampling import SMOTE
    from sklearn.model_selection import train_test_split

    def prepare(X, y):
        X_res, y_res = SMOTE(random_state=0).fit_resample(X, y)  # <-
        return train_test_split(X_res, y_res, test_size=0.25, stratify=y_res)
    """
    (f,) = findings(src, BEFORE)
    assert f.location.line == line(src, "# <-")
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
    assert hits(src, BEFORE) == set()


def test_feature_selection_before_cross_validation_and_kfold():
    src = """
    from sklearn.feature_selection import SelectKBest, f_classif
    from sklearn.model_selection import KFold, cross_val_score
    from sklearn.svm import SVC

    def evaluate(X, y):
        X_sel = SelectKBest(f_classif, k=20).fit_transform(X, y)  # <- cv
        return cross_val_score(SVC(), X_sel, y, cv=5)

    def folds(X, y, scaler):
        X = scaler.fit_transform(X)  # <- kfold
        for tr, te in KFold(5).split(X):
            yield tr, te
    """
    got = findings(src, BEFORE)
    assert {f.location.line for f in got} == {line(src, "# <- cv"), line(src, "# <- kfold")}
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
    assert hits(src, BEFORE) == set()


def test_lightning_train_dataloader_hook_without_shuffle():
    src = """
    import lightning as L
    from torch.utils.data import DataLoader

    class Data(L.LightningDataModule):
        def train_dataloader(self):
            return DataLoader(self.train_set, batch_size=64, num_workers=4)  # <-

        def val_dataloader(self):
            return DataLoader(self.val_set, batch_size=64, num_workers=4)
    """
    assert hits(src, SHUFFLE) == {(SHUFFLE, line(src, "# <-"))}


def test_shuffle_enabled_only_in_one_branch_of_a_kwargs_dict():
    src = """
    import torch
    from torchvision import datasets

    def main(args):
        use_cuda = not args.no_cuda and torch.cuda.is_available()
        train_kwargs = {'batch_size': args.batch_size}
        test_kwargs = {'batch_size': args.test_batch_size}
        if use_cuda:
            cuda_kwargs = {'num_workers': 1, 'pin_memory': True, 'shuffle': True}
            train_kwargs.update(cuda_kwargs)  # <- update
            test_kwargs.update(cuda_kwargs)
        dataset1 = datasets.MNIST('../data', train=True, download=True)
        dataset2 = datasets.MNIST('../data', train=False)
        train_loader = torch.utils.data.DataLoader(dataset1, **train_kwargs)  # <- loader
        test_loader = torch.utils.data.DataLoader(dataset2, **test_kwargs)

    def other(args, ds):
        kw = dict(batch_size=args.batch_size, num_workers=4)
        if args.distributed:
            kw['shuffle'] = False
        train_loader = torch.utils.data.DataLoader(ds, **kw)  # <- never
    """
    got = findings(src, SHUFFLE)
    assert {f.location.line for f in got} == {line(src, "# <- loader"), line(src, "# <- never")}
    (conditional,) = [f for f in got if f.location.line == line(src, "# <- loader")]
    assert "only conditionally" in conditional.message
    assert f"line {line(src, '# <- update')}" in conditional.message and "if use_cuda" in conditional.message
    (never,) = [f for f in got if f.location.line == line(src, "# <- never")]
    assert "never enabled" in never.message and "conditionally" not in never.message


def test_kwargs_dicts_that_always_shuffle_or_cannot_be_followed_are_fine():
    src = """
    import torch
    from torch.utils.data import DataLoader, DistributedSampler

    def main(args, dataset1):
        train_kwargs = {'batch_size': args.batch_size, 'shuffle': True}
        if args.cuda:
            train_kwargs.update({'num_workers': 1, 'pin_memory': True})
        train_loader = DataLoader(dataset1, **train_kwargs)

    def with_sampler(args, train_ds):
        kw = {'batch_size': 64}
        if args.distributed:
            kw['sampler'] = DistributedSampler(train_ds)
        else:
            kw['shuffle'] = True
        train_loader = DataLoader(train_ds, **kw)

    def merged(args, train_ds):
        base = {'shuffle': True}
        kw = {**base, 'batch_size': 32}
        train_loader = DataLoader(train_ds, **kw)

    def build_train_loader(train_ds, loader_kwargs):
        return DataLoader(train_ds, **loader_kwargs)

    def configured(train_ds, cfg):
        kw = dict(batch_size=32)
        configure(kw, cfg)
        train_loader = DataLoader(train_ds, **kw)
    """
    assert hits(src, SHUFFLE) == set()


def test_truncated_bptt_loader_keeps_its_order():
    src = """
    import torch
    from torch.utils.data import DataLoader

    def repackage_hidden(h):
        return h.detach() if isinstance(h, torch.Tensor) else tuple(repackage_hidden(v) for v in h)

    def train(model, corpus, opt, crit, bs):
        train_loader = DataLoader(corpus, batch_size=35, shuffle=False)
        hidden = model.init_hidden(bs)
        for x, y in train_loader:
            hidden = tuple(h.detach() for h in hidden) if isinstance(hidden, tuple) else repackage_hidden(hidden)
            out, hidden = model(x, hidden)
            loss = crit(out.view(-1, out.size(-1)), y.view(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()

    def train_stateless(model, ds, opt, crit):
        train_loader = DataLoader(ds, batch_size=35)  # <-
        total = torch.zeros(())
        for x, y in train_loader:
            hidden = model.init_hidden(x.size(0))
            out, hidden = model(x, hidden)
            hidden = hidden.detach()
            loss = crit(out, y)
            total = total + loss.detach()  # carried across batches, but not a sequence state
            opt.zero_grad()
            loss.backward()
            opt.step()
    """
    assert hits(src, SHUFFLE) == {(SHUFFLE, line(src, "# <-"))}


def test_kwargs_dict_changes_are_followed_path_by_path():
    src = """
    from torch.utils.data import DataLoader

    def merged_later(args, train_ds):
        kw = {'batch_size': 4}
        if args.shuffle_data:
            kw |= {'shuffle': True}
        train_loader = DataLoader(train_ds, **kw)  # <- merged

    def popped(args, train_ds):
        kw = {'batch_size': 4, 'shuffle': True}
        if args.debug:
            kw.pop('shuffle')
        train_loader = DataLoader(train_ds, **kw)  # <- popped

    def defaulted(train_ds):
        kw = {'batch_size': 4}
        kw.setdefault('shuffle', True)
        train_loader = DataLoader(train_ds, **kw)

    def copied(args, train_ds):
        base = dict(batch_size=4, num_workers=2)
        train_kw = base.copy()
        train_kw['shuffle'] = args.shuffle
        train_loader = DataLoader(train_ds, **train_kw)

    def computed_keys(opts, train_ds):
        kw = {}
        for key, value in opts.items():
            kw[key] = value
        train_loader = DataLoader(train_ds, **kw)
    """
    got = {f.location.line: f.message for f in findings(src, SHUFFLE)}
    assert set(got) == {line(src, "# <- merged"), line(src, "# <- popped")}
    assert "inside `if args.shuffle_data:`" in got[line(src, "# <- merged")]
    assert "removes or overrides" in got[line(src, "# <- popped")]
