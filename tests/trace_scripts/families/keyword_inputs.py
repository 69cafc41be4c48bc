"""Models called with keyword inputs (model(**batch), Hugging Face style) or with one dict, not a positional tensor.

argv: 'raw-kwargs' (pixel_values= of raw 0..255 values: unnormalised input, the bug), 'scaled-kwargs' (the same
scaled to [0, 1]: correct), 'raw-dict' (the raw values inside a dict passed as the only argument: the bug),
'pad-scored' (input_ids= with trailing pad ids and labels copied from them, pad included: the bug),
'pad-ignored' (the pad labels set to -100: correct).
"""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "raw-kwargs"
torch.manual_seed(0)
V, PAD = 20, 0


class ImageNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(48, 16), nn.ReLU(), nn.Linear(16, 2))

    def forward(self, pixel_values=None, labels=None):
        if isinstance(pixel_values, dict):
            pixel_values, labels = pixel_values["pixel_values"], pixel_values["labels"]
        return nn.functional.cross_entropy(self.net(pixel_values), labels)


class TokenNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 16)
        self.head = nn.Linear(16, V)

    def forward(self, input_ids=None, labels=None):
        logits = self.head(self.emb(input_ids))
        return nn.functional.cross_entropy(logits[:, :-1].reshape(-1, V), labels[:, 1:].reshape(-1))


model = TokenNet() if mode.startswith("pad") else ImageNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(12):
    if mode.startswith("pad"):
        lengths = torch.randint(3, 6, (8,))
        ids = torch.randint(1, V, (8, 16))
        ids[torch.arange(16)[None, :] >= lengths[:, None]] = PAD
        labels = ids.clone()
        if mode == "pad-ignored":
            labels[ids == PAD] = -100
        loss = model(input_ids=ids, labels=labels)
    else:
        images = torch.randint(0, 256, (16, 3, 4, 4)).float()
        batch = {"pixel_values": images / 255.0 if mode == "scaled-kwargs" else images, "labels": torch.randint(0, 2, (16,))}
        loss = model(batch) if mode == "raw-dict" else model(**batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
