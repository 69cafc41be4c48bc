import numpy as np
import torch
from torch.utils.data import Dataset


class TalkingFaceDataset(Dataset):
    """Pairs of (audio features, face vertex sequence, neutral template) for one speaker clip.

    Real data would hold wav2vec features at 50 Hz and FLAME vertices at 25 fps; frames are
    pre-aligned here so that audio has twice as many frames as the mesh sequence.
    """

    def __init__(self, clips, template):
        self.clips = clips
        self.template = template

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, idx):
        audio, vertices = self.clips[idx]
        return torch.from_numpy(audio), torch.from_numpy(vertices), torch.from_numpy(self.template)


def load_clips(path):
    arrays = np.load(path, allow_pickle=True)
    clips = [(a.astype(np.float32), v.astype(np.float32)) for a, v in zip(arrays["audio"], arrays["vertices"])]
    return clips, arrays["template"].astype(np.float32)
