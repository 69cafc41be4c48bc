"""Datasets for the dataset-probe tests: buggy ones, and healthy code that resembles them.

``probed(ds)`` runs the child's probe in this process on one dataset (as the trace does at a loader's first
``iter()``) and checks that it left nothing behind: the dataset's state and the global random states are as before.
"""

from __future__ import annotations

import copy
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import ClassVar

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "server" / "mlsleuth" / "runtime" / "child"))

from trace_datasets import DatasetProbe

MEAN, STD = 0.5, 0.2


def _same_state(a, b, depth=0) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.shape == b.shape and bool(((a == b) | (a.isnan() & b.isnan())).all()) if a.is_floating_point() else torch.equal(a, b)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b)
    if isinstance(a, np.random.Generator):
        return a.bit_generator.state == b.bit_generator.state
    if depth > 5:
        return True
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_state(x, y, depth + 1) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_state(a[k], b[k], depth + 1) for k in a)
    if hasattr(a, "__dict__") and not callable(a):
        return _same_state(vars(a), vars(b), depth + 1)
    if isinstance(a, (int, float, str, bool, type(None))):
        return a == b
    return True


def probed(ds, **loader_kwargs) -> dict:
    """The probe's result for one dataset behind a DataLoader; asserts that the probe was undone."""
    loader = DataLoader(ds, **loader_kwargs)
    torch.manual_seed(123)
    np.random.seed(7)
    random.seed(3)
    try:
        before = copy.deepcopy(ds)
    except TypeError:  # an open file: compared by the test itself
        before = None
    rng = (torch.get_rng_state(), np.random.get_state(), random.getstate())
    probe = DatasetProbe()
    probe.see(loader)
    assert torch.equal(rng[0], torch.get_rng_state())
    assert all(np.array_equal(x, y) for x, y in zip(rng[1], np.random.get_state()) if isinstance(x, np.ndarray))
    assert rng[2] == random.getstate()
    assert before is None or _same_state(vars(before), vars(ds)), "the probe left the dataset changed"
    return probe.result()


def images(n=64, seed=0, dtype=np.float32, shape=(1, 8, 8)):
    rng = np.random.default_rng(seed)
    return (0.5 + 0.2 * rng.standard_normal((n, *shape))).astype(dtype), rng.integers(0, 4, size=n)


# -- __getitem__ writes into the stored samples ----------------------------------------------------------------------


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = torch.tensor(mean), torch.tensor(std)

    def __call__(self, x):
        return x.sub_(self.mean).div_(self.std)


class TensorCacheInplaceNormalize(Dataset):
    """A float tensor cache; the transform gets a view and normalises it with sub_/div_ (plus a random flip)."""

    def __init__(self):
        x, y = images()
        self.images, self.labels = torch.from_numpy(x), torch.from_numpy(y)
        self.transform = Normalize(MEAN, STD)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = self.images[i]
        if torch.rand(()) < 0.5:
            img = img.flip(-1)  # a copy: then the cache is not touched
        return self.transform(img), self.labels[i]


class NumpyCacheInplaceNormalize(Dataset):
    """A float64 numpy cache normalised in place with -= and /=, returned through torch.from_numpy."""

    def __init__(self):
        self.x, self.y = images(dtype=np.float64)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        x = self.x[i]
        x -= MEAN
        x /= STD
        return torch.from_numpy(x).float(), int(self.y[i])


class ListOfTensorsInplaceNoise(Dataset):
    """Per-sample tensors in a list; noise augmentation added in place (it accumulates on the cached sample)."""

    def __init__(self):
        x, y = images(n=40)
        self.samples = [(torch.from_numpy(a), int(b)) for a, b in zip(x, y)]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        x, y = self.samples[i]
        x.add_(0.1 * torch.randn_like(x))
        return x, y


class LabelShiftedInPlace(Dataset):
    """1-based labels shifted to 0-based in place on the stored tensor: every read shifts again."""

    def __init__(self):
        x, y = images(n=32)
        self.x, self.targets = torch.from_numpy(x), torch.from_numpy(y + 1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        y = self.targets[i]
        y -= 1
        return self.x[i].clone(), y


class WindowsScaledInPlace(Dataset):
    """Overlapping windows of a series, standardised in place (each read standardises the stored series again)."""

    def __init__(self, window=16):
        self.series = torch.linspace(1, 5, 200)
        self.window = window

    def __len__(self):
        return len(self.series) - self.window

    def __getitem__(self, i):
        w = self.series[i:i + self.window]
        w -= 3.0
        w /= 1.5
        return w, self.series[i + self.window]


# -- healthy look-alikes ------------------------------------------------------------------------------------------


class RandomAugment(Dataset):
    """Random flips and noise, out of place, from the global generators."""

    def __init__(self):
        self.x, self.y = images()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        x = torch.from_numpy(self.x[i])
        if random.random() < 0.5:
            x = x.flip(-1)
        x = x + 0.05 * torch.randn_like(x) + float(np.random.uniform(-0.1, 0.1))
        return (x - MEAN) / STD, int(self.y[i])


class OwnGeneratorAugment(Dataset):
    """Augmentation from a generator the dataset owns (and a torch.Generator)."""

    def __init__(self):
        self.x, self.y = images()
        self.rng = np.random.default_rng(0)
        self.gen = torch.Generator().manual_seed(0)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        shift = int(self.rng.integers(0, 3))
        noise = torch.randn(self.x[i].shape, generator=self.gen)
        return torch.from_numpy(np.roll(self.x[i], shift, axis=-1)) + 0.1 * noise, int(self.y[i])


class FreshEntropyAugment(Dataset):
    """A new unseeded generator on every call: a reread differs, but nothing stored changes."""

    def __init__(self):
        self.x, self.y = images()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        rng = np.random.default_rng()
        return torch.from_numpy(self.x[i] + rng.normal(0, 0.1, self.x[i].shape).astype(np.float32)), int(self.y[i])


class PreallocatedCache(Dataset):
    """Decoded samples cached into a preallocated tensor on first read (random crop of a bigger raw image)."""

    def __init__(self):
        raw, self.y = images(shape=(1, 10, 10))
        self.raw = raw
        self.cache = torch.zeros(len(raw), 1, 10, 10)
        self.filled = torch.zeros(len(raw), dtype=torch.bool)

    def __len__(self):
        return len(self.raw)

    def __getitem__(self, i):
        if not self.filled[i]:
            self.cache[i] = (torch.from_numpy(self.raw[i]) - MEAN) / STD
            self.filled[i] = True
        r, c = torch.randint(0, 3, (2,)).tolist()
        return self.cache[i, :, r:r + 8, c:c + 8], int(self.y[i])


class DictMemo(Dataset):
    """A dict memo of decoded samples, and of augmented ones (reused: a different bug, not this one)."""

    memo: ClassVar[dict] = {}  # a class-level cache the probe must put back too

    def __init__(self, augment_cached=False):
        self.x, self.y = images()
        self.cache = {}
        self.augment_cached = augment_cached

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        if i not in self.cache:
            x = torch.from_numpy(self.x[i].copy())
            if self.augment_cached:
                x = x + 0.1 * torch.randn_like(x)
            self.cache[i] = x
            DictMemo.memo[i] = True
        return self.cache[i], int(self.y[i])


class LazyFiles(Dataset):
    """One .npy file per sample, read on access, with a file handle opened lazily (as in worker-safe datasets)."""

    def __init__(self, folder):
        x, self.y = images(n=12)
        self.files = []
        for k, a in enumerate(x):
            path = os.path.join(folder, f"{k}.npy")
            np.save(path, a)
            self.files.append(path)
        self.log = None

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        if self.log is None:
            self.log = open(os.devnull, "w")  # noqa: SIM115 - kept open like an lmdb/h5 handle
        x = np.load(self.files[i])
        x -= MEAN  # in place on a fresh array: nothing stored changes
        return torch.from_numpy(x), int(self.y[i])


class CopyThenNormalize(Dataset):
    def __init__(self):
        x, self.y = images()
        self.x = torch.from_numpy(x)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        img = self.x[i].clone()
        img.sub_(MEAN).div_(STD)
        return img, int(self.y[i])


class Uint8CacheFloatCopy(Dataset):
    """uint8 cache; .float() makes a new tensor before the in-place normalisation (the dev look-alike's shape)."""

    def __init__(self):
        x, self.y = images()
        self.x = torch.from_numpy(np.clip(x * 255, 0, 255).astype(np.uint8))
        self.norm = Normalize(MEAN, STD)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.norm(self.x[i].float().div(255)), int(self.y[i])


class EpochCounterCrop(Dataset):
    """A crop offset that moves with an internal counter bumped on every read."""

    def __init__(self):
        x, self.y = images(shape=(1, 12, 12))
        self.x = x
        self.calls = 0

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        self.calls += 1
        o = self.calls % 4
        return torch.from_numpy(self.x[i, :, o:o + 8, o:o + 8].copy()), int(self.y[i])


class ReshufflesOrderInPlace(Dataset):
    """Reshuffles its own index array in place at index 0 (start of a pass)."""

    def __init__(self):
        self.x, self.y = images()
        self.order = np.arange(len(self.x))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        if i == 0:
            np.random.shuffle(self.order)
        j = self.order[i]
        return torch.from_numpy(self.x[j]), int(self.y[j])


class RunningStatsNormalize(Dataset):
    """Feature vectors normalised with running statistics updated on every read."""

    def __init__(self):
        rng = np.random.default_rng(0)
        self.x = torch.from_numpy(rng.normal(3, 2, (64, 6)).astype(np.float32))
        self.mean = torch.zeros(6)
        self.count = 0

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        self.count += 1
        self.mean.mul_(0.9).add_(0.1 * self.x[i])  # an exponential moving average of the features
        return self.x[i] - self.mean, 0


class ScratchBuffer(Dataset):
    """Each sample assembled in a reused scratch buffer, normalised there, and returned as a copy."""

    def __init__(self):
        x, self.y = images()
        self.x = torch.from_numpy(x)
        self.buf = torch.empty(1, 8, 8)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        self.buf.copy_(self.x[i])
        self.buf.sub_(MEAN).div_(STD)
        return self.buf.clone(), int(self.y[i])


class IdempotentInPlace(Dataset):
    """Stored rows centred in place: after the first read, a read changes them by rounding only."""

    def __init__(self):
        x, self.y = images()
        self.x = torch.from_numpy(x)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        x = self.x[i]
        x -= x.mean()
        return x, int(self.y[i])


def tmpdir() -> str:
    return tempfile.mkdtemp(prefix="mlsleuth-ds-")


# -- __len__ shorter than the data ------------------------------------------------------------------------------------

CLASSES = ["cat", "dog", "bird", "fish"]
N_ROWS = 200


class LenIsImageHeight(Dataset):
    def __init__(self, n=N_ROWS):
        self.images, self.labels = images(n=n, shape=(16, 16))

    def __len__(self):
        return self.images.shape[1]

    def __getitem__(self, i):
        return torch.from_numpy(self.images[i]).unsqueeze(0), int(self.labels[i])


class LenIsClassCount(Dataset):
    def __init__(self):
        self.x, self.y = images(n=N_ROWS)
        self.classes = CLASSES

    def __len__(self):
        return len(self.classes)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), int(self.y[i])


class LenIsNumClassesAttribute(Dataset):
    def __init__(self):
        self.x, self.y = images(n=N_ROWS)
        self.num_classes = int(self.y.max()) + 1

    def __len__(self):
        return self.num_classes

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), int(self.y[i])


class LenHardCoded(Dataset):
    def __init__(self):
        self.x, self.y = images(n=N_ROWS)

    def __len__(self):
        return 50

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), int(self.y[i])


class LenOfEncodingsDict(Dataset):
    """Tokenised texts in a dict of lists: len() of the dict is its number of keys."""

    def __init__(self):
        rng = np.random.default_rng(0)
        ids = rng.integers(1, 100, size=(N_ROWS, 12))
        self.encodings = {"input_ids": ids.tolist(), "attention_mask": np.ones_like(ids).tolist()}
        self.labels = rng.integers(0, 2, size=N_ROWS).tolist()

    def __len__(self):
        return len(self.encodings)

    def __getitem__(self, i):
        item = {k: torch.tensor(v[i]) for k, v in self.encodings.items()}
        item["labels"] = torch.tensor(self.labels[i])
        return item


class LenCountsBatches(Dataset):
    """A Keras Sequence ported to torch: len() still counts batches while __getitem__ returns one sample."""

    def __init__(self, batch_size=16):
        self.x, self.y = images(n=N_ROWS)
        self.batch_size = batch_size

    def __len__(self):
        return int(np.ceil(len(self.x) / self.batch_size))

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), int(self.y[i])


# healthy look-alikes


class SentencesWithVocab(Dataset):
    """A vocabulary much longer than the list of sentences; len() is the number of sentences."""

    def __init__(self):
        rng = np.random.default_rng(0)
        self.vocab = [f"w{k}" for k in range(500)]
        self.sentences = [rng.integers(0, 500, size=8).tolist() for _ in range(20)]

    def __len__(self):
        return len(self.sentences)

    def __getitem__(self, i):
        return torch.tensor(self.sentences[i])


class SlidingWindows(Dataset):
    def __init__(self, window=16, stacked=False):
        self.series = torch.randn(N_ROWS, 3)
        self.window, self.stacked = window, stacked

    def __len__(self):
        return len(self.series) - self.window + 1

    def __getitem__(self, i):
        if self.stacked:
            return self.series[torch.arange(i, i + self.window)]
        return self.series[i:i + self.window]


class Repeated(Dataset):
    def __init__(self, times=3):
        self.x, self.y = images(n=40)
        self.times = times

    def __len__(self):
        return self.times * len(self.x)

    def __getitem__(self, i):
        i = i % len(self.x)
        return torch.from_numpy(self.x[i]), int(self.y[i])


class RandomPatches(Dataset):
    """A nominal epoch length; each call crops a random patch of a random image (the index is ignored)."""

    def __init__(self):
        self.x, self.y = images(n=N_ROWS, shape=(1, 12, 12))

    def __len__(self):
        return 12

    def __getitem__(self, i):
        j = int(torch.randint(0, len(self.x), ()))
        o = int(torch.randint(0, 4, ()))
        return torch.from_numpy(self.x[j, :, o:o + 8, o:o + 8].copy()), int(self.y[j])


class CappedForDebugging(Dataset):
    def __init__(self, max_samples=30):
        self.x, self.y = images(n=N_ROWS)
        self.max_samples = max_samples

    def __len__(self):
        return min(self.max_samples, len(self.x))

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), int(self.y[i])


class BatchesFromDataset(Dataset):
    """Whole batches per index (used with batch_size=None): len() counts batches and that is right here."""

    def __init__(self, batch_size=16, n=N_ROWS):
        self.x, self.y = images(n=n)
        self.batch_size = batch_size

    def __len__(self):
        return int(np.ceil(len(self.x) / self.batch_size))

    def __getitem__(self, i):
        s = slice(i * self.batch_size, (i + 1) * self.batch_size)
        return torch.from_numpy(self.x[s]), torch.from_numpy(self.y[s])


class Pairs(Dataset):
    """Consecutive rows form one sample."""

    def __init__(self):
        self.x, _ = images(n=N_ROWS)
        self.pair = 2

    def __len__(self):
        return len(self.x) // 2

    def __getitem__(self, i):
        return torch.from_numpy(self.x[2 * i]), torch.from_numpy(self.x[2 * i + 1])


class IndexedSubsetOfArrays(Dataset):
    """The full arrays and the indices of this split: len() is the split's size."""

    def __init__(self, indices):
        self.x, self.y = images(n=N_ROWS)
        self.indices = list(indices)

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        j = self.indices[i]
        return torch.from_numpy(self.x[j]), int(self.y[j])


class ChannelsLastLayout(Dataset):
    """(height, width, samples) layout: len() is the last axis, which holds the samples here."""

    def __init__(self):
        x, self.y = images(n=N_ROWS, shape=(16, 16))
        self.images = np.ascontiguousarray(np.moveaxis(x, 0, -1))

    def __len__(self):
        return self.images.shape[-1]

    def __getitem__(self, i):
        return torch.from_numpy(self.images[:, :, i].copy()), int(self.y[i])


class SeededEpisodes(Dataset):
    """Episodes drawn with the index as seed: a nominal length, and any index is a valid episode."""

    def __init__(self):
        self.x, self.y = images(n=N_ROWS)

    def __len__(self):
        return 100

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        pick = rng.choice(len(self.x), size=5, replace=False)
        return torch.from_numpy(self.x[pick]), torch.from_numpy(self.y[pick])


class PullsFromAStream(Dataset):
    """Ignores the index and takes the next sample from an iterator: a read cannot be given back."""

    def __init__(self):
        x, _ = images()
        self.stream = iter(list(x))
        self.x = x

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return torch.from_numpy(next(self.stream))


class ReadsAnOpenFile(Dataset):
    """Fixed-size records read from a file kept open; the file position is part of its state."""

    def __init__(self, folder):
        x, _ = images(n=16)
        self.path = os.path.join(folder, "records.bin")
        x.tofile(self.path)
        self.f = open(self.path, "rb")  # noqa: SIM115 - kept open on purpose
        self.rec = x[0].nbytes

    def __len__(self):
        return 16

    def __getitem__(self, i):
        return torch.from_numpy(np.frombuffer(self.f.read(self.rec), dtype=np.float32).copy())


READS = 0


class CountsReadsInAGlobal(Dataset):
    def __init__(self):
        self.x, _ = images(n=8)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        global READS, LAST_INDEX
        READS += 1
        LAST_INDEX = i
        return torch.from_numpy(self.x[i])
