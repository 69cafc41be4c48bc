"""The ``one-shot-iterable-reused`` rule (``mlsleuth/scan/rules/data/one_shot_iterable_reused.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, messages

RULE = {"one-shot-iterable-reused"}


def test_iterator_made_before_the_epoch_loop_is_read_in_it():
    src = """
    import torch
    from torch import nn

    def train_vision(model, images, labels, opt, epochs):
        data = zip(images, labels)
        for epoch in range(epochs):
            for x, y in data:  # expect: one-shot-iterable-reused
                loss = nn.functional.cross_entropy(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()

    def batchify(tokens, size):
        for i in range(0, len(tokens), size):
            yield tokens[i:i + size]

    def train_lm(model, tokens, opt, epochs):
        batches = batchify(tokens, 32)
        for epoch in range(epochs):
            total = 0.0
            for i, b in enumerate(batches):  # expect: one-shot-iterable-reused
                loss = model(b).mean()
                loss.backward()
                opt.step()
                total += loss.item()
            print(epoch, total)

    def train_stream(model, train_loader, opt, n_epochs):
        it = iter(train_loader)
        epoch = 0
        while epoch < n_epochs:
            for batch in it:  # expect: one-shot-iterable-reused
                model(batch).sum().backward()
                opt.step()
            epoch += 1
    """
    check(src, RULE)


def test_two_readers_one_after_the_other():
    src = """
    import csv
    from pathlib import Path

    def load_table(path):
        with open(path) as f:
            reader = csv.DictReader(f)
            means = {}
            for row in reader:
                for k, v in row.items():
                    means[k] = means.get(k, 0.0) + float(v)
            rows = [{k: float(v) - means[k] for k, v in row.items()} for row in reader]  # expect: one-shot-iterable-reused
        return rows

    def split_transitions(buffer):
        live = (t for t in buffer if not t.done)
        states = [t.state for t in live]
        actions = [t.action for t in live]  # expect: one-shot-iterable-reused
        return states, actions

    def index_audio(root):
        files = Path(root).rglob("*.wav")
        print("found", len(list(files)), "clips")
        return {f.stem: f for f in files}  # expect: one-shot-iterable-reused

    def make_pairs(xs, ys):
        return zip(xs, ys)

    def fit_pairs(model, xs, ys, opt, epochs):
        pairs = make_pairs(xs, ys)
        for epoch in range(epochs):
            for x, y in pairs:  # expect: one-shot-iterable-reused
                model(x).sum().backward()
                opt.step()

    def all_pairs(stream):
        it = iter(stream)
        out = []
        for a in it:
            for b in it:  # expect: one-shot-iterable-reused
                out.append((a, b))
        return out

    def cross(users, items):
        candidates = filter(None, items)
        return [(u, i) for u in users for i in candidates]  # expect: one-shot-iterable-reused

    def read_vocab(path):
        f = open(path)
        size = len(f.read().split())
        vocab = [line.strip() for line in f]  # expect: one-shot-iterable-reused
        return size, vocab
    """
    check(src, RULE)
    msgs = [f.message for f in messages(src, "one-shot-iterable-reused")]
    assert any("generator expression" in m and "sees nothing" in m for m in msgs)


def test_through_a_helper_a_parameter_and_an_attribute(tmp_path):
    files = {
        "loops.py": """
            import torch

            def fit(model, pairs, opt, epochs):
                for epoch in range(epochs):
                    for x, y in pairs:
                        loss = torch.nn.functional.mse_loss(model(x), y)
                        opt.zero_grad()
                        loss.backward()
                        opt.step()

            def run_epoch(model, pairs, opt):
                for x, y in pairs:
                    model(x).sum().backward()
                    opt.step()
            """,
        "train.py": """
            import torch
            from loops import fit, run_epoch

            def main(model, xs, ys, opt):
                fit(model, zip(xs, ys), opt, epochs=5)  # expect: one-shot-iterable-reused
                fit(model, list(zip(xs, ys)), opt, epochs=5)
                feats = map(torch.as_tensor, xs)
                for epoch in range(3):
                    run_epoch(model, feats, opt)  # expect: one-shot-iterable-reused

            class Trainer:
                def __init__(self, model, texts, encode):
                    self.model = model
                    self.batches = map(encode, texts)

                def train_epoch(self):
                    for batch in self.batches:  # expect: one-shot-iterable-reused
                        self.model(batch).mean().backward()

            def run(trainer, epochs):
                for _ in range(epochs):
                    trainer.train_epoch()
            """,
    }
    check_project(tmp_path, files, RULE)


def test_fresh_materialised_and_partly_read_iterators_are_fine():
    src = """
    import itertools
    import glob
    from torch.utils.data import DataLoader

    def train(model, images, labels, opt, epochs, train_ds, steps_per_epoch):
        pairs = list(zip(images, labels))
        loader = DataLoader(train_ds, batch_size=32, shuffle=True)
        sanity = next(iter(loader))
        forever = itertools.cycle(loader)
        stream = iter(loader)
        for epoch in range(epochs):
            gen = ((x, y) for x, y in pairs)
            for x, y in gen:
                model(x).sum().backward()
            for x, y in pairs:
                model(x).sum().backward()
            it = iter(loader)
            for batch in it:
                opt.step()
            for batch in loader:
                opt.step()
            for step in range(steps_per_epoch):
                batch = next(forever)
                opt.step()
            for step, batch in enumerate(stream):
                opt.step()
                if step + 1 == steps_per_epoch:
                    break
        return sanity

    def pairs_of(seq):
        it = iter(seq)
        return list(zip(it, it))

    def body_after_header(path):
        with open(path) as f:
            for line in f:
                if line.startswith("---"):
                    break
            return [line for line in f]

    def rewind(path):
        f = open(path)
        n = sum(1 for _ in f)
        f.seek(0)
        return n, [line for line in f]

    def choose(xs, fast):
        it = map(float, xs)
        if fast:
            return sum(it)
        return sorted(it)

    def either(xs, fast):
        it = map(float, xs)
        if fast:
            total = sum(it)
        else:
            total = max(it)
        return total

    def follow(path, handle):
        f = open(path)
        while True:
            for line in f:
                handle(line)

    def lazy_twice(xs):
        it = map(float, xs)
        doubled = (2 * x for x in it)
        return list(doubled)

    def retried(xs):
        it = map(float, xs)
        try:
            values = list(it)
        except ValueError:
            values = [v for v in it if v == v]
        return values

    def test_drained(xs):
        it = iter(xs)
        for x in it:
            print(x)
        assert list(it) == []

    def listed(root):
        files = glob.glob(root + "/*.png")
        n = len(files)
        return n, [f for f in files]

    def parse(tokens):
        it = iter(tokens)
        groups = []
        for tok in it:
            if tok == "(":
                inner = []
                for t in it:
                    if t == ")":
                        break
                    inner.append(t)
                groups.append(inner)
        return groups

    def pattern(args):
        it = iter(args)
        parts = []
        for i, a in enumerate(it):
            if a == "--":
                for a in it:
                    parts.append("A")
            else:
                parts.append("O")
        return parts
    """
    check(src, RULE)


def test_parameter_iterators_are_left_to_their_own_rule():
    src = """
    import torch

    def fit(model, loader):
        params = model.parameters()
        opt = torch.optim.SGD(params, lr=0.1)
        torch.nn.utils.clip_grad_norm_(params, 1.0)
    """
    check(src, RULE)


def test_lightning_hooks_that_return_a_one_shot_iterable():
    src = """
    import lightning.pytorch as pl
    from torch.utils.data import DataLoader

    class TextModule(pl.LightningModule):
        def __init__(self, texts, encode):
            super().__init__()
            self.val_batches = map(encode, texts)

        def train_dataloader(self):
            loader = DataLoader(self.train_set, batch_size=32, shuffle=True)
            return iter(loader)  # expect: one-shot-iterable-reused

        def val_dataloader(self):
            return self.val_batches  # expect: one-shot-iterable-reused

    class Clean(pl.LightningDataModule):
        def train_dataloader(self):
            return DataLoader(self.train_set, batch_size=32, shuffle=True)

        def val_dataloader(self):
            pairs = list(zip(self.xs, self.ys))
            return pairs

    class NotLightning:
        def train_dataloader(self):
            return iter(self.loader)
    """
    check(src, RULE)
