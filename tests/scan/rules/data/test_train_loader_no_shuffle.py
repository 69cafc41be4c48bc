"""The ``train-loader-no-shuffle`` rule (``mlsleuth/scan/rules/data/train_loader_no_shuffle.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, findings

SHUFFLE = "train-loader-no-shuffle"


def test_training_loader_without_shuffle():
    src = """
    from torch.utils.data import DataLoader

    train_loader = DataLoader(train_ds, batch_size=32, shuffle=False)  # expect: train-loader-no-shuffle
    loader = DataLoader(dataset, batch_size=64)  # expect: train-loader-no-shuffle

    def fit(model, opt, crit):
        for epoch in range(3):
            for x, y in loader:
                opt.zero_grad()
                crit(model(x), y).backward()
                opt.step()
    """
    check(src, {SHUFFLE})
    got = findings(src, SHUFFLE)
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
    check(src, {SHUFFLE})


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
    check(src, {SHUFFLE})


def test_lightning_train_dataloader_hook_without_shuffle():
    src = """
    import lightning as L
    from torch.utils.data import DataLoader

    class Data(L.LightningDataModule):
        def train_dataloader(self):
            return DataLoader(self.train_set, batch_size=64, num_workers=4)  # expect: train-loader-no-shuffle

        def val_dataloader(self):
            return DataLoader(self.val_set, batch_size=64, num_workers=4)
    """
    check(src, {SHUFFLE})


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
            train_kwargs.update(cuda_kwargs)
            test_kwargs.update(cuda_kwargs)
        dataset1 = datasets.MNIST('../data', train=True, download=True)
        dataset2 = datasets.MNIST('../data', train=False)
        train_loader = torch.utils.data.DataLoader(dataset1, **train_kwargs)  # expect: train-loader-no-shuffle
        test_loader = torch.utils.data.DataLoader(dataset2, **test_kwargs)

    def other(args, ds):
        kw = dict(batch_size=args.batch_size, num_workers=4)
        if args.distributed:
            kw['shuffle'] = False
        train_loader = torch.utils.data.DataLoader(ds, **kw)  # expect: train-loader-no-shuffle
    """
    check(src, {SHUFFLE})
    conditional, never = sorted(findings(src, SHUFFLE), key=lambda f: f.location.line)
    assert "only conditionally" in conditional.message
    # line 10 of the snippet (leading newline dropped) is `train_kwargs.update(cuda_kwargs)`
    assert "line 10" in conditional.message and "if use_cuda" in conditional.message
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
    check(src, {SHUFFLE})


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
        train_loader = DataLoader(ds, batch_size=35)  # expect: train-loader-no-shuffle
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
    check(src, {SHUFFLE})


def test_kwargs_dict_changes_are_followed_path_by_path():
    src = """
    from torch.utils.data import DataLoader

    def merged_later(args, train_ds):
        kw = {'batch_size': 4}
        if args.shuffle_data:
            kw |= {'shuffle': True}
        train_loader = DataLoader(train_ds, **kw)  # expect: train-loader-no-shuffle

    def popped(args, train_ds):
        kw = {'batch_size': 4, 'shuffle': True}
        if args.debug:
            kw.pop('shuffle')
        train_loader = DataLoader(train_ds, **kw)  # expect: train-loader-no-shuffle

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
    check(src, {SHUFFLE})
    merged, popped = sorted(findings(src, SHUFFLE), key=lambda f: f.location.line)
    assert "inside `if args.shuffle_data:`" in merged.message
    assert "removes or overrides" in popped.message


def test_stream_datasets_and_a_single_batch_drawn_once_have_no_epoch_order():
    src = """
        from torch.utils.data import DataLoader

        def loaders(train_iterator, train_pipe, opts, collate):
            train_dataloader = DataLoader(train_iterator, batch_size=opts.batch, collate_fn=collate)
            stream_loader = DataLoader(train_pipe, batch_size=opts.batch)
            return train_dataloader, stream_loader

        def forward_forward(net, train_set):
            train_loader = DataLoader(train_set, batch_size=60000)
            x, y = next(iter(train_loader))
            net.train_ff(x, y)
        """
    check(src, {"train-loader-no-shuffle"})


def test_a_loader_sampled_once_and_also_looped_over_still_counts():
    src = """
        from torch.utils.data import DataLoader

        def train(model, opt, train_set):
            train_loader = DataLoader(train_set, batch_size=32)  # expect: train-loader-no-shuffle
            x0, _ = next(iter(train_loader))
            for epoch in range(10):
                for x, y in train_loader:
                    opt.zero_grad()
                    model(x).sum().backward()
                    opt.step()
        """
    check(src, {"train-loader-no-shuffle"})


def test_a_dataset_shuffled_before_it_is_wrapped_is_fine(tmp_path):
    # packed text chunks shuffled once with a seed in a data helper, then read in that order for one pass
    check_project(
        tmp_path,
        {
            "corpus.py": """
                from datasets import load_dataset

                def packed_chunks(tokenizer, length):
                    raw = load_dataset("text", data_files="corpus.txt")["train"]
                    ids = raw.map(lambda r: tokenizer(r["text"]), remove_columns=["text"])
                    chunks = ids.map(lambda b: {"input_ids": [b["input_ids"][i:i + length] for i in range(0, len(b["input_ids"]), length)]})
                    return chunks.shuffle(seed=7)
                """,
            "pretrain.py": """
                import torch
                from torch.utils.data import DataLoader
                from corpus import packed_chunks

                def main(model, tokenizer, steps):
                    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
                    train_loader = DataLoader(packed_chunks(tokenizer, 512), batch_size=8)
                    mixed = tokenizer_rows(tokenizer).shuffle(seed=1)
                    train_mixed_loader = DataLoader(mixed, batch_size=8)
                    train_plain_loader = DataLoader(tokenizer_rows(tokenizer), batch_size=8)  # expect: train-loader-no-shuffle
                    for loader in (train_loader, train_mixed_loader, train_plain_loader):
                        for step, batch in enumerate(loader):
                            model(**batch).loss.backward()
                            opt.step()
                            opt.zero_grad()

                def tokenizer_rows(tokenizer):
                    return []
                """,
        },
        {SHUFFLE},
    )


def test_loader_over_a_random_toy_dataset_stays_silent(tmp_path):
    # a parallelism demo trains on random tokens from a dataset class in another module: no stored order
    data = """
        import torch
        from torch.utils.data import Dataset

        class RandomTokens(Dataset):
            def __init__(self, vocab, length):
                self.tokens = torch.randint(vocab, (256, length + 1), generator=torch.Generator().manual_seed(0))

            def __len__(self):
                return 256

            def __getitem__(self, i):
                return self.tokens[i, :-1], self.tokens[i, 1:]

        class Points(Dataset):
            def __init__(self, path):
                self.rows = torch.load(path)

            def __getitem__(self, i):
                return self.rows[i]

        class Blobs(Dataset):
            # synthetic too, but laid out class by class: the stored order is sorted by label
            def __init__(self, n, k):
                xs, ys = [], []
                for c in range(k):
                    xs.append(torch.randn(n, 2) + c)
                    ys.append(torch.full((n,), c))
                self.x, self.y = torch.cat(xs), torch.cat(ys)

            def __getitem__(self, i):
                return self.x[i], self.y[i]

        class Mixtures(Dataset):
            # every item is a fresh random mixture; the index is not read
            def __len__(self):
                return 1000

            def __getitem__(self, i):
                a, b = torch.randn(16000), torch.randn(16000)
                return a + b, torch.stack([a, b])
        """
    train = """
        from torch.utils.data import DataLoader
        from data import RandomTokens, Points, Blobs, Mixtures

        def main(model, opt):
            train_loader = DataLoader(RandomTokens(1000, 64), batch_size=8)
            stored = Points("rows.pt")
            train_points = DataLoader(stored, batch_size=8)  # expect: train-loader-no-shuffle
            train_blobs = DataLoader(Blobs(100, 3), batch_size=8)  # expect: train-loader-no-shuffle
            train_mix = DataLoader(Mixtures(), batch_size=8)
            tokens = RandomTokens(1000, 64)
            loader = DataLoader(tokens, batch_size=8)
            for x, y in loader:
                opt.zero_grad()
                model(x, y).backward()
                opt.step()
        """
    check_project(tmp_path, {"data.py": data, "train.py": train}, {SHUFFLE})
