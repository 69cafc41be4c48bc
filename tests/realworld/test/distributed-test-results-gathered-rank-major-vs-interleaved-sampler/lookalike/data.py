import torch
from torch.utils.data import Dataset


class ToyClassificationSet(Dataset):
    """Two Gaussian blobs per class in 10-d; labels kept in dataset order for evaluation."""

    def __init__(self, n=501, dim=10, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.gt_labels = torch.randint(0, 3, (n,), generator=g)
        centers = torch.randn(3, dim, generator=torch.Generator().manual_seed(42)) * 2.0
        self.features = centers[self.gt_labels] + torch.randn(n, dim, generator=g)

    def __len__(self):
        return len(self.gt_labels)

    def __getitem__(self, idx):
        return self.features[idx], self.gt_labels[idx]

    def evaluate(self, results):
        preds = torch.tensor([int(r.argmax()) for r in results])
        return (preds == self.gt_labels).float().mean().item()
