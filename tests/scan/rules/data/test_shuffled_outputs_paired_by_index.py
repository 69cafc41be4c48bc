"""The ``shuffled-outputs-paired-by-index`` rule (``mlsleuth/scan/rules/data/shuffled_outputs_paired_by_index.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"shuffled-outputs-paired-by-index"}


def test_outputs_from_a_shuffled_loader_scored_against_index_ordered_labels():
    src = """
        import numpy as np
        import torch
        from torch.utils.data import DataLoader, Subset

        class Handler:
            def __init__(self, population):
                self.population = population

            def get_dataloader(self, indices, shuffle=True):
                return DataLoader(Subset(self.population, indices), batch_size=256, shuffle=shuffle)

            def get_labels(self, indices):
                return np.asarray([int(self.population.targets[i]) for i in indices])

            def get_logits(self, model, indices):
                loader = self.get_dataloader(indices)  # expect: shuffled-outputs-paired-by-index
                return torch.cat([model(x) for x, _ in loader]).numpy()

            def signal(self, model, indices):
                logits = self.get_logits(model, indices)
                labels = self.get_labels(indices)
                probs = torch.softmax(torch.from_numpy(logits), dim=1).numpy()
                return probs[np.arange(len(labels)), labels]

        def predict(model, dataset):
            loader = DataLoader(dataset, batch_size=64, shuffle=True)  # expect: shuffled-outputs-paired-by-index
            preds = []
            for x, y in loader:
                preds.append(model(x).argmax(1))
            return torch.cat(preds)

        def evaluate(model, dataset):
            preds = predict(model, dataset)
            targets = torch.as_tensor(dataset.targets)
            return (preds == targets).float().mean()
        """
    check(src, RULE)


def test_labels_kept_order_free_or_unshuffled_stay_silent():
    src = """
        import numpy as np
        import torch
        from torch.utils.data import DataLoader

        def predict_with_labels(model, dataset):
            loader = DataLoader(dataset, batch_size=64, shuffle=True)
            pairs = [(model(x), y) for x, y in loader]
            return torch.cat([p for p, _ in pairs]), torch.cat([y for _, y in pairs])

        def predict_in_order(model, dataset):
            loader = DataLoader(dataset, batch_size=64, shuffle=False)
            return torch.cat([model(x) for x, _ in loader])

        def features(model, dataset):
            loader = DataLoader(dataset, batch_size=64, shuffle=True)
            return torch.cat([model(x) for x, _ in loader])

        def evaluate(model, dataset):
            preds, labels = predict_with_labels(model, dataset)
            ordered = predict_in_order(model, dataset)
            targets = torch.as_tensor(dataset.targets)
            feats = features(model, dataset)
            return (preds.argmax(1) == labels).float().mean(), (ordered.argmax(1) == targets).float().mean(), feats.mean(0)
        """
    check(src, RULE)
