"""`dataset-getitem-modifies-stored-data` (trace): a Dataset's __getitem__ writes into its stored samples."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch.utils.data import DataLoader

from . import dataset_zoo as zoo
from .measurements import findings_for, traced

CHECK = "dataset-getitem-modifies-stored-data"


def _rec(**over):
    rec = {"dataset": "InMemoryImages", "index": 3, "len": 256, "leaf": "[0]", "leaf_shape": [1, 8, 8], "leaf_numel": 64,
           "first": {"mean": 0.0, "std": 1.0, "absmax": 2.5}, "second": {"mean": -2.5, "std": 5.0, "absmax": 12.0},
           "max_diff": 9.5, "workers": 0, "persistent": False, "path": "/x/transforms.py", "line": 12, "inplace_op_found": True,
           "rewritten": [{"path": "images", "shape": [256, 1, 8, 8], "dtype": "torch.float32", "changed": 64, "reordered": False,
                          "numel": 16384, "rows_changed": 1, "rows": 256, "in_container": False, "shared": False}]}
    rec.update(over)
    return {"datasets": {"rereads": [rec]}, "script_dir": "/x"}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, _rec())
    assert hit.location.line == 12 and hit.location.path.endswith("transforms.py")
    assert "images" in hit.observation and "item 3" in hit.message


def test_not_found_when_the_evidence_is_not_a_sample_written_in_place():
    w = _rec()["datasets"]["rereads"][0]["rewritten"][0]
    assert not findings_for(CHECK, _rec(rewritten=[{**w, "reordered": True}]))  # an index array shuffled in place
    assert not findings_for(CHECK, _rec(rewritten=[{**w, "rows_changed": 200}]))  # the whole array: a running statistic
    assert not findings_for(CHECK, _rec(rewritten=[{**w, "changed": 6}]))  # far fewer values than the item's
    assert not findings_for(CHECK, _rec(max_diff=1e-7))  # rounding of an idempotent in-place op
    assert not findings_for(CHECK, _rec(workers=2))  # fresh worker copies each pass: nothing compounds
    assert findings_for(CHECK, _rec(workers=2, persistent=True))
    assert not findings_for(CHECK, {})


BUGGY = [zoo.TensorCacheInplaceNormalize, zoo.NumpyCacheInplaceNormalize, zoo.ListOfTensorsInplaceNoise, zoo.LabelShiftedInPlace,
         zoo.WindowsScaledInPlace]
HEALTHY = [zoo.RandomAugment, zoo.OwnGeneratorAugment, zoo.FreshEntropyAugment, zoo.PreallocatedCache, zoo.DictMemo,
           lambda: zoo.DictMemo(augment_cached=True), lambda: zoo.LazyFiles(zoo.tmpdir()), zoo.CopyThenNormalize,
           zoo.Uint8CacheFloatCopy, zoo.EpochCounterCrop, zoo.ReshufflesOrderInPlace, zoo.RunningStatsNormalize,
           zoo.ScratchBuffer, zoo.IdempotentInPlace]


def _findings(result):
    return findings_for(CHECK, {"datasets": result})


@pytest.mark.parametrize("make", BUGGY, ids=lambda c: c.__name__)
def test_probe_finds_in_place_writes_and_undoes_them(make):
    result = zoo.probed(make())  # asserts that the dataset and the random states are left as they were
    (hit,) = _findings(result)
    assert hit.location.line


@pytest.mark.parametrize("make, text", [(zoo.TensorCacheInplaceNormalize, "x.sub_(self.mean)"),  # torch, in a transform
                                         (zoo.NumpyCacheInplaceNormalize, "x -= MEAN")])  # numpy's in-place operator
def test_probe_points_at_the_line_that_writes(make, text):
    (rec,) = zoo.probed(make())["rereads"]
    assert rec["inplace_op_found"] and rec["path"].endswith("dataset_zoo.py")
    assert text in Path(rec["path"]).read_text().splitlines()[rec["line"] - 1]


@pytest.mark.parametrize("make", HEALTHY, ids=lambda c: getattr(c, "__name__", "lambda"))
def test_probe_quiet_on_healthy_datasets(make):
    assert not _findings(zoo.probed(make()))


def test_probe_puts_back_class_level_caches_and_lazy_handles():
    zoo.DictMemo.memo.clear()
    zoo.probed(zoo.DictMemo())
    assert zoo.DictMemo.memo == {}
    ds = zoo.LazyFiles(zoo.tmpdir())
    zoo.probed(ds)
    assert ds.log is None
    zoo.probed(zoo.CountsReadsInAGlobal())
    assert zoo.READS == 0 and not hasattr(zoo, "LAST_INDEX")


def test_probe_leaves_iterators_alone_and_rewinds_files():
    ds = zoo.PullsFromAStream()
    result = zoo.probed(ds)
    assert result["skipped"] and not result["rereads"]
    assert torch.equal(ds[0], torch.from_numpy(ds.x[0]))  # the stream still starts at its first sample
    ds = zoo.ReadsAnOpenFile(zoo.tmpdir())
    zoo.probed(ds)
    assert ds.f.tell() == 0


def test_probe_is_undone_for_the_users_run():
    """The same shuffled batches, with the same values, with and without the probe (the bug compounding alike)."""
    from trace_datasets import DatasetProbe

    def batches(probe):
        torch.manual_seed(0)
        ds = zoo.TensorCacheInplaceNormalize()
        loader = DataLoader(ds, batch_size=16, shuffle=True)
        out = []
        for _ in range(3):
            if probe:
                DatasetProbe().see(loader)
            out += [x.clone() for x, _ in loader]
        return out

    plain, probed = batches(False), batches(True)
    assert all(torch.equal(a, b) for a, b in zip(plain, probed)) and len(plain) == len(probed)


def test_probe_skips_what_it_could_not_undo(monkeypatch):
    import dataset_state

    monkeypatch.setattr(dataset_state, "MAX_HOST_BYTES", 1024)
    result = zoo.probed(zoo.TensorCacheInplaceNormalize())
    assert not result["rereads"] and result["skipped"]


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("inplace", True), ("copy", False), ("augment", False)])
def test_a_cached_image_set_normalised_in_place(variant, bug):
    hits = [f for f in traced("dataset_probes.py", variant, steps=12) if f.rule == CHECK]
    assert bool(hits) == bug
    if bug:
        script = Path(__file__).resolve().parents[2] / "trace_scripts" / "families" / "dataset_probes.py"
        assert hits[0].location.path.endswith("dataset_probes.py")
        assert "img.sub_(" in script.read_text().splitlines()[hits[0].location.line - 1]
