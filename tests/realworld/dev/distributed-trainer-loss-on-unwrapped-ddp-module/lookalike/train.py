"""Launch with: torchrun --nproc_per_node=2 train.py"""
import os

import torch
import torch.distributed as dist
from torch.utils.data import Dataset

from curriculum_learning import CurriculumTrainer


class CaptionedSeries(Dataset):
    def __init__(self, n, length=64, caption_len=12, vocab=128, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.series = torch.cumsum(torch.randn(n, length, generator=g), dim=1)
        slope = (self.series[:, -1] - self.series[:, 0]).sign().long() + 3
        self.input_ids = torch.randint(4, vocab, (n, caption_len), generator=g)
        self.input_ids[:, 0] = 1
        self.input_ids[:, 1] = slope

    def __len__(self):
        return len(self.series)

    def __getitem__(self, idx):
        return {"series": self.series[idx], "input_ids": self.input_ids[idx]}


def main():
    if "RANK" in os.environ:
        dist.init_process_group("gloo")
    torch.manual_seed(0)
    stages = [
        ("stage1_captioning", CaptionedSeries(512, seed=1), 2),
        ("stage2_reasoning", CaptionedSeries(512, seed=2), 2),
    ]
    CurriculumTrainer(stages).run_curriculum()
    if dist.is_initialized():
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
