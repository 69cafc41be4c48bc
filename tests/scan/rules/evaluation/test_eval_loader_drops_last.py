"""The ``eval-loader-drops-last`` rule (``mlsleuth/scan/rules/evaluation/eval_loader_drops_last.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"eval-loader-drops-last"}


def test_evaluation_loaders_that_drop_their_last_batch():
    src = """
    from torch.utils.data import DataLoader
    import torch

    def loaders(train_set, val_set, test_set, bs):
        train_loader = DataLoader(train_set, batch_size=bs, shuffle=True, drop_last=True)
        val_loader = DataLoader(val_set, batch_size=bs, drop_last=True)  # expect: eval-loader-drops-last
        return train_loader, val_loader, torch.utils.data.DataLoader(test_set, bs, drop_last=True)  # expect: eval-loader-drops-last

    def data_provider(args, flag):
        if flag == "train":
            shuffle, drop_last = True, True
        elif flag == "test":
            shuffle = False
            drop_last = True  # expect: eval-loader-drops-last
        else:
            shuffle, drop_last = False, False
        return DataLoader(make_set(flag), batch_size=args.batch_size, shuffle=shuffle, drop_last=drop_last)

    def factory(split, bs):
        drop = False
        if split != "train":
            drop = True  # expect: eval-loader-drops-last
        return DataLoader(make_set(split), batch_size=bs, drop_last=drop)
    """
    check(src, RULE)


def test_training_loaders_and_batches_of_one_are_fine():
    src = """
    from torch.utils.data import DataLoader

    def loaders(train_set, val_set, test_set, bs, cfg):
        a = DataLoader(train_set, batch_size=bs, shuffle=True, drop_last=True)
        b = DataLoader(val_set, batch_size=bs, drop_last=False)
        c = DataLoader(test_set, batch_size=1, drop_last=True)
        d = DataLoader(val_set, batch_size=bs, drop_last=cfg.drop_last)
        train_val_loader = DataLoader(train_set + val_set, batch_size=bs, drop_last=True)
        return a, b, c, d, train_val_loader

    def data_provider(args, flag):
        if flag == "test":
            drop_last = True
            batch_size = 1
        elif flag == "train":
            drop_last = True
            batch_size = args.batch_size
        else:
            drop_last = False
            batch_size = args.batch_size
        return DataLoader(make_set(flag), batch_size=batch_size, drop_last=drop_last)

    def only_train(split, bs):
        drop = split == "train"
        return DataLoader(make_set(split), batch_size=bs, drop_last=drop)
    """
    check(src, RULE)
