"""The ``batchnorm-unsynced-tiny-batch`` rule (``mlsleuth/scan/rules/distributed/batchnorm_unsynced_tiny_batch.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"batchnorm-unsynced-tiny-batch"}

MODEL = """
import torch.nn as nn
import torchvision


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = torchvision.models.resnet50()
        self.head = nn.Sequential(nn.Conv2d(2048, 256, 1), nn.BatchNorm2d(256))
"""

CONFIG = """
from dataclasses import dataclass


@dataclass
class Config:
    samples_per_gpu: int = 1
    workers_per_gpu: int = 4
"""

TRAIN = """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from config import Config
from model import Detector


def build_model(device, local_rank):
    model = Detector()  # expect: batchnorm-unsynced-tiny-batch
    model = model.to(device)
    return DDP(model, device_ids=[local_rank])


def main(ds, device, rank):
    cfg = Config()
    model = build_model(device, rank)
    loader = DataLoader(ds, batch_size=cfg.samples_per_gpu, num_workers=cfg.workers_per_gpu)
    for x, y in loader:
        model(x).sum().backward()
"""


def test_bn_detector_one_sample_per_gpu_across_files(tmp_path):
    check_project(tmp_path, {"model.py": MODEL, "config.py": CONFIG, "train.py": TRAIN}, RULE)


def test_argparse_batch_of_two_and_inline_resnet():
    check(
        """
        import argparse
        import torch
        import torchvision
        from torch.utils.data import DataLoader

        p = argparse.ArgumentParser()
        p.add_argument("--batch-size", type=int, default=2)
        args = p.parse_args()
        net = torch.nn.parallel.DistributedDataParallel(torchvision.models.resnet18().cuda())  # expect: batchnorm-unsynced-tiny-batch
        train_loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True)
        """,
        RULE,
    )


def test_large_batches_sync_bn_and_norm_free_models_are_fine(tmp_path):
    check_project(tmp_path / "big", {"model.py": MODEL, "config.py": CONFIG.replace("samples_per_gpu: int = 1", "samples_per_gpu: int = 64"),
                                     "train.py": TRAIN.replace("  # expect: batchnorm-unsynced-tiny-batch", "")}, RULE)
    synced = TRAIN.replace("  # expect: batchnorm-unsynced-tiny-batch", "").replace(
        "    model = model.to(device)", "    model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model).to(device)")
    check_project(tmp_path / "sync", {"model.py": MODEL, "config.py": CONFIG, "train.py": synced}, RULE)
    layer_norm = MODEL.replace("torchvision.models.resnet50()", "nn.Identity()").replace("nn.BatchNorm2d(256)", "nn.GroupNorm(32, 256)")
    check_project(tmp_path / "gn", {"model.py": layer_norm, "config.py": CONFIG,
                                    "train.py": TRAIN.replace("  # expect: batchnorm-unsynced-tiny-batch", "")}, RULE)
    check(
        """
        import torch
        from torch.utils.data import DataLoader

        net = torch.nn.parallel.DistributedDataParallel(torch.nn.BatchNorm1d(8))
        val_loader = DataLoader(dataset, batch_size=1)      # evaluation, one sample at a time
        train_loader = DataLoader(dataset, batch_size=32)
        """,
        RULE,
    )
