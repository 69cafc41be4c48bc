import json
from pathlib import Path

import torch
from PIL import Image
from torch.utils.data import Dataset
from torchvision.transforms import functional as TF

from heatmap import generate_channel_heatmap


class KeypointDataset(Dataset):
    """COCO-style annotations: one entry per image with a list of keypoints per channel."""

    def __init__(self, json_path, channels, image_size=(256, 320), sigma=3.0):
        self.root = Path(json_path).parent
        with open(json_path) as fh:
            self.entries = json.load(fh)["images"]
        self.channels = channels
        self.image_size = image_size
        self.sigma = sigma

    def __len__(self):
        return len(self.entries)

    def __getitem__(self, idx):
        entry = self.entries[idx]
        image = Image.open(self.root / entry["file_name"]).convert("RGB")
        sx = self.image_size[1] / image.width
        sy = self.image_size[0] / image.height
        image = TF.resize(image, list(self.image_size))
        image = TF.normalize(TF.to_tensor(image), [0.485, 0.456, 0.406], [0.229, 0.224, 0.225])

        maps = []
        for channel in self.channels:
            pts = torch.tensor(entry["keypoints"].get(channel, []), dtype=torch.float32).reshape(-1, 2)
            pts = pts * torch.tensor([sx, sy])
            maps.append(generate_channel_heatmap(self.image_size, pts, self.sigma))
        return image, torch.stack(maps)
