"""The ``paired-sequences-misaligned`` rule (``mlsleuth/scan/rules/data/paired_sequences_misaligned.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"paired-sequences-misaligned"}


def test_segmentation_listings_one_sorted():
    src = """
    import os
    from torch.utils.data import Dataset

    class SegData(Dataset):
        def __init__(self, root):
            self.images = sorted(os.listdir(os.path.join(root, "images")))
            self.masks = os.listdir(os.path.join(root, "masks"))  # expect: paired-sequences-misaligned

        def __len__(self):
            return len(self.images)

        def __getitem__(self, idx):
            img = load(self.images[idx])
            mask = load(self.masks[idx])
            return img, mask
    """
    check(src, RULE)


def test_glob_listings_zipped_neither_sorted():
    src = """
    import glob
    from pathlib import Path

    def pairs(root):
        noisy = glob.glob(root + "/noisy/*.wav")  # expect: paired-sequences-misaligned
        clean = [str(p) for p in Path(root, "clean").glob("*.wav")]
        return list(zip(noisy, clean))
    """
    check(src, RULE)


def test_walk_listing_against_sorted_glob():
    src = """
    import os, glob

    def collect(img_dir, lbl_dir):
        images = []
        for root, _, files in os.walk(img_dir):  # expect: paired-sequences-misaligned
            for f in files:
                images.append(os.path.join(root, f))
        labels = sorted(glob.glob(os.path.join(lbl_dir, "*.txt")))
        for img, lbl in zip(images, labels):
            yield img, lbl
    """
    check(src, RULE)


def test_collate_sorts_sequences_but_not_labels():
    src = """
    import torch
    from torch.nn.utils.rnn import pad_sequence

    def collate(batch):
        seqs, labels = zip(*batch)
        seqs = sorted(seqs, key=len, reverse=True)  # expect: paired-sequences-misaligned
        return pad_sequence(seqs, batch_first=True), torch.tensor(labels)
    """
    check(src, RULE)


def test_texts_filtered_labels_kept():
    src = """
    import pandas as pd
    from sklearn.model_selection import train_test_split

    def load(path):
        df = pd.read_csv(path)
        texts = df["text"].tolist()
        labels = df["label"].tolist()
        texts = [t.strip() for t in texts if t]  # expect: paired-sequences-misaligned
        return train_test_split(texts, labels, test_size=0.1)
    """
    check(src, RULE)


def test_tabular_inputs_shuffled_alone():
    src = """
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    def fit(path):
        X = np.load(path + "/x.npy")
        y = np.load(path + "/y.npy")
        np.random.shuffle(X)  # expect: paired-sequences-misaligned
        clf = LogisticRegression()
        clf.fit(X, y)
        return clf
    """
    check(src, RULE)


def test_rl_rollout_lists_one_reversed():
    src = """
    def returns(rewards, values, gamma):
        states, rets = [], []
        for r, v in zip(rewards, values):
            states.append(v)
            rets.append(r)
        rets = rets[::-1]  # expect: paired-sequences-misaligned
        return [(s, g) for s, g in zip(states, rets)]
    """
    check(src, RULE)


def test_keras_sequence_shuffles_inputs_each_epoch():
    src = """
    import numpy as np

    class Batches:
        def __init__(self, x_paths, y):
            self.x_paths = x_paths
            self.y = y

        def on_epoch_end(self):
            np.random.shuffle(self.x_paths)  # expect: paired-sequences-misaligned

        def __getitem__(self, i):
            xs = self.x_paths[i * 32:(i + 1) * 32]
            ys = self.y[i * 32:(i + 1) * 32]
            return xs, ys
    """
    check(src, RULE)


def test_dataframe_sampled_labels_from_before():
    src = """
    import torch
    from torch.utils.data import TensorDataset

    def make(df):
        y = torch.tensor(df["target"].values)
        df = df.sample(frac=1.0)  # expect: paired-sequences-misaligned
        x = torch.tensor(df.drop(columns=["target"]).values)
        return TensorDataset(x, y)
    """
    check(src, RULE)


def test_listings_passed_to_a_dataset_in_another_module(tmp_path):
    files = {
        "data.py": """
            from torch.utils.data import Dataset

            class Pairs(Dataset):
                def __init__(self, images, masks):
                    self.images = images
                    self.masks = masks

                def __getitem__(self, i):
                    return self.images[i], self.masks[i]  # expect: paired-sequences-misaligned
            """,
        "train.py": """
            import glob
            from data import Pairs

            def build(root):
                return Pairs(sorted(glob.glob(root + "/img/*.png")), glob.glob(root + "/mask/*.png"))
            """,
    }
    check_project(tmp_path, files, RULE)


def test_helper_in_another_module_lists_without_sorting(tmp_path):
    files = {
        "files.py": """
            import os

            def list_dir(d):
                return [os.path.join(d, f) for f in os.listdir(d)]
            """,
        "prep.py": """
            from files import list_dir

            def pairs(a, b):
                return list(zip(sorted(list_dir(a)), list_dir(b)))  # expect: paired-sequences-misaligned
            """,
    }
    check_project(tmp_path, files, RULE)


def test_aligned_look_alikes_stay_silent():
    src = """
    import os, glob, random
    import numpy as np
    import pandas as pd
    import torch

    def both_sorted(a_dir, b_dir):
        imgs = sorted(os.listdir(a_dir))
        masks = os.listdir(b_dir)
        masks.sort()
        return list(zip(imgs, masks))

    def sorted_pairs(a, b):
        return sorted(zip(a, b))

    def one_permutation(x, y):
        idx = np.random.permutation(len(x))
        x, y = x[idx], y[idx]
        return list(zip(x, y))

    def sort_by_length(seqs, labels):
        order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]), reverse=True)
        seqs = [seqs[i] for i in order]
        labels = [labels[i] for i in order]
        return seqs, labels

    def argsort_both(x, y, lengths):
        order = np.argsort(lengths)
        return x[order], y[order]

    def derived_after(root):
        paths = sorted(glob.glob(root + "/*.jpg"))
        labels = [p.split("/")[-2] for p in paths]
        return list(zip(paths, labels))

    def derived_masks(img_dir, mask_dir):
        images = os.listdir(img_dir)
        masks = [os.path.join(mask_dir, f) for f in images]
        return list(zip(images, masks))

    def by_name(img_dir, masks):
        out = []
        for name in os.listdir(img_dir):
            out.append((name, masks[name]))
        return out

    def reuse_names(img_dir, mask_dir):
        for fname in os.listdir(img_dir):
            yield os.path.join(img_dir, fname), os.path.join(mask_dir, fname)

    def merged(a, b):
        return pd.merge(a, b, on="id")

    def one_list_of_pairs(data):
        random.shuffle(data)
        return data

    def never_paired(names):
        names.sort()
        return names

    def shuffled_indices(images, labels):
        index = list(range(len(images)))
        random.shuffle(index)
        for i in index:
            yield images[i], labels[i]

    def train_and_val(root):
        train = glob.glob(root + "/train/*.png")
        random.shuffle(train)
        return train, glob.glob(root + "/val/*.png")

    def kept_and_dropped(items):
        kept = [i for i in items if i.ok]
        return kept, items

    def mixup(x, y, alpha):
        perm = torch.randperm(x.size(0))
        x2, y2 = x[perm], y[perm]
        return [(a, b) for a, b in zip(x, x2)], y2

    def is_sorted(lens):
        return all(a <= b for a, b in zip(lens[:-1], sorted(lens[:-1])))

    def encode(tokens, vocab):
        corpus = [vocab[token] for token in tokens]
        return corpus, vocab

    def optional_targets(samples):
        images, targets = [], []
        for s in samples:
            images.append(s.image)
            if s.target is not None:
                targets.append(s.target)
        return [(images[i], targets[i]) for i in range(len(targets))]

    def reversed_twice(repeats):
        scaled = []
        for r in repeats[::-1]:
            scaled.append(r * 2)
        scaled = scaled[::-1]
        return list(zip(repeats, scaled))

    def mask_both(x, y):
        keep = y >= 0
        return torch.utils.data.TensorDataset(x[keep], y[keep])
    """
    check(src, RULE)


def test_class_look_alikes_stay_silent():
    src = """
    import os
    import numpy as np

    class Pairs:
        def __init__(self, root):
            self.images = sorted(os.listdir(root + "/img"))
            self.masks = [n.replace(".jpg", ".png") for n in self.images]
            self.order = np.arange(len(self.images))

        def on_epoch_end(self):
            np.random.shuffle(self.order)

        def __getitem__(self, i):
            j = self.order[i]
            return self.images[j], self.masks[j]

    class Sequence:
        def __init__(self, x, y):
            self.x, self.y = x, y

        def on_epoch_end(self):
            p = np.random.permutation(len(self.x))
            self.x, self.y = self.x[p], self.y[p]

        def __getitem__(self, i):
            return self.x[i * 8:(i + 1) * 8], self.y[i * 8:(i + 1) * 8]
    """
    check(src, RULE)


def test_independent_shuffles_left_to_the_older_rule():
    src = """
    import numpy as np

    def load(X, y):
        np.random.shuffle(X)
        np.random.shuffle(y)  # expect: pairs-shuffled-separately
        return X, y
    """
    check(src, RULE | {"pairs-shuffled-separately"})


def test_hf_dataset_column_taken_before_a_shuffle():
    src = """
    from datasets import load_dataset

    def columns():
        ds = load_dataset("imdb", split="train")
        labels = ds["label"]
        ds = ds.shuffle(seed=0)  # expect: paired-sequences-misaligned
        texts = ds["text"]
        return list(zip(texts, labels))
    """
    check(src, RULE)


def test_dict_keys_sorted_values_not():
    src = """
    def table(counts):
        for name, n in zip(sorted(counts.keys()), counts.values()):  # expect: paired-sequences-misaligned
            print(name, n)
        for name, n in zip(sorted(counts), [counts[k] for k in sorted(counts)]):
            print(name, n)
    """
    check(src, RULE)


def test_attribute_reordered_in_init_before_pairing():
    src = """
    class Rows:
        def __init__(self, frame):
            self.x = frame["x"].values
            self.y = frame["y"].values
            self.x = self.x[::-1]  # expect: paired-sequences-misaligned

        def __getitem__(self, i):
            return self.x[i], self.y[i]
    """
    check(src, RULE)


def test_lightning_datamodule_passes_listings_to_a_dataset():
    src = """
    import glob
    import lightning as L
    from torch.utils.data import Dataset, DataLoader

    class SegDataset(Dataset):
        def __init__(self, images, masks):
            self.images, self.masks = images, masks

        def __len__(self):
            return len(self.images)

        def __getitem__(self, i):
            return read(self.images[i]), read(self.masks[i])

    class SegData(L.LightningDataModule):
        def setup(self, stage=None):
            self.images = glob.glob("data/images/*.png")  # expect: paired-sequences-misaligned
            self.masks = sorted(glob.glob("data/masks/*.png"))
            self.train = SegDataset(self.images, self.masks)

        def train_dataloader(self):
            return DataLoader(self.train, batch_size=8, shuffle=True)
    """
    check(src, RULE)


def test_sorted_and_unsorted_passed_to_a_pairing_function():
    src = """
    import os

    def pair_up(audio, transcripts):
        return [(a, t) for a, t in zip(audio, transcripts)]

    def build(root):
        return pair_up(sorted(os.listdir(root + "/wav")), os.listdir(root + "/txt"))  # expect: paired-sequences-misaligned

    def build_ok(root):
        return pair_up(sorted(os.listdir(root + "/wav")), sorted(os.listdir(root + "/txt")))
    """
    check(src, RULE)
