import glob

import torch
import torchaudio
from torch.utils.data import Dataset


class BirdClips(Dataset):
    def __init__(self, root, split, transform):
        self.files = sorted(glob.glob(f"{root}/{split}/*/*.ogg"))
        classes = sorted({f.split("/")[-2] for f in self.files})
        self.class_to_idx = {c: i for i, c in enumerate(classes)}
        self.transform = transform

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        wav, _ = torchaudio.load(self.files[i])
        return self.transform(wav.mean(0)), self.class_to_idx[self.files[i].split("/")[-2]]
