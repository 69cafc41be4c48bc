import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, Dataset

from config import GANConfig
from lit_vocoder import LitVocoderGAN


class WaveSegments(Dataset):
    def __init__(self, waves, segment):
        self.waves = waves
        self.segment = segment

    def __len__(self):
        return len(self.waves)

    def __getitem__(self, idx):
        wav = self.waves[idx]
        start = torch.randint(0, max(1, wav.shape[-1] - self.segment), (1,)).item()
        return wav[..., start:start + self.segment]


def main(waves):
    cfg = GANConfig()
    loader = DataLoader(WaveSegments(waves, cfg.segment), batch_size=16, shuffle=True, num_workers=4)
    model = LitVocoderGAN(cfg)
    trainer = pl.Trainer(max_steps=500_000, log_every_n_steps=50)
    trainer.fit(model, loader)
