"""Collect layer activations of a small image model for concept and random example sets."""
import torch
from torch import nn


class TinyConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(4),
        )
        self.classifier = nn.Linear(32 * 16, 10)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def make_concept_images(n, generator):
    """Images with a bright horizontal stripe pattern (the 'striped' concept)."""
    images = torch.rand(n, 3, 16, 16, generator=generator) * 0.5
    images[:, :, ::3, :] += 0.8
    return images


def make_random_images(n, generator):
    return torch.rand(n, 3, 16, 16, generator=generator)


@torch.no_grad()
def layer_activations(model, layer, images, batch_size=64):
    captured = []
    handle = layer.register_forward_hook(lambda mod, inp, out: captured.append(out.flatten(1)))
    model.eval()
    for start in range(0, len(images), batch_size):
        model(images[start:start + batch_size])
    handle.remove()
    return torch.cat(captured)
