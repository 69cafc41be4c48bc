"""`dataset-len-shorter-than-data` (trace): a Dataset's __len__ is smaller than the data it indexes."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch.utils.data import ConcatDataset, WeightedRandomSampler, random_split

from . import dataset_zoo as zoo
from .measurements import findings_for, traced

CHECK = "dataset-len-shorter-than-data"


def test_found_on_measurements():
    rec = {"dataset": "TileDataset", "len": 16, "storage": "images", "rows": 2000, "storage_shape": [2000, 16, 16],
           "why": "images has 2000 rows and 16 is the size of another of its dimensions [2000, 16, 16]",
           "path": "/x/datasets.py", "line": 34, "workers": 0, "sampler": "RandomSampler", "wrapped": False}
    (hit,) = findings_for(CHECK, {"datasets": {"lengths": [rec]}, "script_dir": "/x"})
    assert hit.location.line == 34 and "99%" in hit.message and "len(self.images)" in hit.fix


def test_not_found_without_a_record():
    assert not findings_for(CHECK, {"datasets": {"lengths": []}})
    assert not findings_for(CHECK, {})


BUGGY = [zoo.LenIsImageHeight, zoo.LenIsClassCount, zoo.LenIsNumClassesAttribute, zoo.LenHardCoded, zoo.LenOfEncodingsDict,
         zoo.LenCountsBatches]
HEALTHY = [(zoo.SentencesWithVocab, {}), (zoo.SlidingWindows, {}), (lambda: zoo.SlidingWindows(stacked=True), {}), (zoo.Repeated, {}),
           (zoo.RandomPatches, {}), (zoo.CappedForDebugging, {}), (zoo.BatchesFromDataset, {"batch_size": None}),
           (lambda: zoo.BatchesFromDataset(n=192), {"batch_size": None}), (zoo.Pairs, {}),
           (lambda: zoo.IndexedSubsetOfArrays(range(50, 90)), {}), (zoo.ChannelsLastLayout, {}), (zoo.SeededEpisodes, {}),
           (lambda: ConcatDataset([zoo.Repeated(), zoo.SentencesWithVocab()]), {}),
           (zoo.LenIsImageHeight, {"sampler": WeightedRandomSampler(torch.ones(zoo.N_ROWS), zoo.N_ROWS)})]


def _findings(result):
    return findings_for(CHECK, {"datasets": result})


@pytest.mark.parametrize("make", BUGGY, ids=lambda c: c.__name__)
def test_probe_finds_a_short_len(make):
    (hit,) = _findings(zoo.probed(make()))
    assert f"{zoo.N_ROWS} samples" in hit.message


def test_probe_finds_a_short_len_behind_random_split():
    part, _ = random_split(zoo.LenIsImageHeight(), [10, 6], generator=torch.Generator().manual_seed(0))
    (hit,) = _findings(zoo.probed(part))
    assert "Subset" in hit.observation


def test_probe_points_at_the_return_of_len():
    (rec,) = zoo.probed(zoo.LenIsImageHeight())["lengths"]
    assert "return self.images.shape[1]" in Path(rec["path"]).read_text().splitlines()[rec["line"] - 1]


@pytest.mark.parametrize("make, loader", HEALTHY, ids=lambda c: getattr(c, "__name__", "case") if callable(c) else "")
def test_probe_quiet_on_healthy_datasets(make, loader):
    assert not _findings(zoo.probed(make(), **loader))


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("len-axis", True), ("copy", False), ("len-window", False)])
def test_len_from_the_wrong_axis(variant, bug):
    assert bool([f for f in traced("dataset_probes.py", variant, steps=12) if f.rule == CHECK]) == bug
