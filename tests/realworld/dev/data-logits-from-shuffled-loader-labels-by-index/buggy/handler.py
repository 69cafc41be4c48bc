import numpy as np
import torch
from torch.utils.data import DataLoader


class ShadowModelHandler:
    """Trains shadow models and collects (logits, label) pairs for a membership-inference attack."""

    def __init__(self, target_model, population, batch_size=256):
        self.target_model = target_model
        self.population = population
        self.batch_size = batch_size

    def get_dataloader(self, indices, shuffle=True):
        subset = torch.utils.data.Subset(self.population, indices)
        return DataLoader(subset, batch_size=self.batch_size, shuffle=shuffle)

    def get_labels(self, indices):
        return np.asarray([int(self.population.targets[i]) for i in indices])

    @torch.no_grad()
    def get_logits(self, model, indices):
        model.eval()
        loader = self.get_dataloader(indices)
        return torch.cat([model(x) for x, _ in loader]).numpy()

    def signal(self, model, indices):
        logits = self.get_logits(model, indices)
        labels = self.get_labels(indices)
        probs = torch.softmax(torch.from_numpy(logits), dim=1).numpy()
        return probs[np.arange(len(labels)), labels]
