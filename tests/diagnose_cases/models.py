"""Setup functions for tests/test_diagnose.py: healthy models and one bug each."""

import torch
from torch import nn

N_IN, N_CLASSES, BATCH = 8, 4, 32


def _batch(seed=0):
    g = torch.Generator().manual_seed(seed)
    teacher = torch.randn(N_IN, N_CLASSES, generator=g)
    x = torch.randn(BATCH, N_IN, generator=g)
    return x, (x @ teacher).argmax(1)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(N_IN, 64)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(64, N_CLASSES)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def healthy():
    torch.manual_seed(0)
    return {"model": MLP(), "batch": _batch(), "loss_fn": nn.CrossEntropyLoss(),
            "optimizer": lambda params: torch.optim.Adam(params, lr=1e-2), "num_classes": N_CLASSES}


def healthy_zero_final_layer():
    """Zero-initialising the *last* layer is a legitimate trick: not symmetric-init."""
    spec = healthy()
    nn.init.zeros_(spec["model"].fc2.weight)
    return spec


class Detached(MLP):
    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)).detach())


def detached():
    torch.manual_seed(0)
    return {"model": Detached(), "batch": _batch(), "loss_fn": nn.CrossEntropyLoss()}


class Lists(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(N_IN, 64), nn.Linear(64, 64)]  # plain list: not registered
        self.head = nn.Linear(64, N_CLASSES)

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return self.head(x)


def unregistered():
    torch.manual_seed(0)
    return {"model": Lists(), "batch": _batch(), "loss_fn": nn.CrossEntropyLoss(),
            "optimizer": lambda params: torch.optim.Adam(params, lr=1e-2)}


def zero_init():
    torch.manual_seed(0)
    model = MLP()
    for p in model.parameters():
        nn.init.zeros_(p)
    return {"model": model, "batch": _batch(), "loss_fn": nn.CrossEntropyLoss(),
            "optimizer": lambda params: torch.optim.SGD(params, lr=1.0)}


class IgnoresInput(MLP):
    def forward(self, x):
        x = torch.zeros_like(x)  # a leftover debugging line
        return super().forward(x)


def ignores_input():
    torch.manual_seed(0)
    return {"model": IgnoresInput(), "batch": _batch(), "loss_fn": nn.CrossEntropyLoss(),
            "optimizer": lambda params: torch.optim.Adam(params, lr=1e-2)}


class TinyLM(nn.Module):
    def __init__(self, causal):
        super().__init__()
        self.causal = causal
        self.emb = nn.Embedding(16, 16)
        self.attn = nn.MultiheadAttention(16, 2, batch_first=True)
        self.out = nn.Linear(16, 16)

    def forward(self, tokens):
        h = self.emb(tokens)
        t = tokens.shape[1]
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1) if self.causal else None
        h, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        return self.out(h)


def _lm(causal):
    torch.manual_seed(0)
    tokens = torch.randint(0, 16, (8, 12))
    inputs, targets = tokens[:, :-1], tokens[:, 1:]

    def loss_fn(logits, tgt):
        return nn.functional.cross_entropy(logits.reshape(-1, 16), tgt.reshape(-1))

    return {"model": TinyLM(causal), "batch": (inputs, targets), "loss_fn": loss_fn, "task": "sequence", "time_dim": 1,
            "optimizer": lambda params: torch.optim.Adam(params, lr=1e-2)}


def lm_causal():
    return _lm(True)


def lm_leaky():
    return _lm(False)


def not_a_dict():
    return MLP()


def missing_loss():
    return {"model": MLP(), "batch": _batch()}


def raises():
    raise RuntimeError("dataset folder not found")


if __name__ == "__main__":
    raise SystemExit("importing this file must not run this block")


def with_loader():
    """A loader of dict batches (inputs/targets keys)."""
    torch.manual_seed(0)
    batches = []
    for seed in range(3):
        x, y = _batch(seed)
        batches.append({"inputs": x, "targets": y})
    return {"model": MLP(), "loader": batches, "loss_fn": nn.CrossEntropyLoss(),
            "optimizer": lambda params: torch.optim.Adam(params, lr=1e-2)}


def custom_loss():
    """compute_loss for an unusual batch layout (a triple)."""
    torch.manual_seed(0)
    x, y = _batch()
    weights = torch.ones(BATCH)

    def compute_loss(model, batch):
        inputs, targets, w = batch
        return (nn.functional.cross_entropy(model(inputs), targets, reduction="none") * w).mean()

    return {"model": MLP(), "batch": (x, y, weights), "compute_loss": compute_loss,
            "optimizer": lambda params: torch.optim.Adam(params, lr=1e-2)}


def softmax_output():
    """A softmax at the end of the model, then CrossEntropyLoss: cannot overfit, and the loss wiring is to blame."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(N_IN, 64), nn.ReLU(), nn.Linear(64, N_CLASSES), nn.Softmax(dim=1))
    return {"model": model, "batch": _batch(), "loss_fn": nn.CrossEntropyLoss(),
            "optimizer": lambda params: torch.optim.Adam(params, lr=1e-2)}


# -- batches fed as keywords, calls that do not fit, and the overfit verdict run to run ----------------
class MaskedMLP(MLP):
    def forward(self, x, mask):
        return super().forward(x * mask)


def dict_inputs():
    """Keyword inputs: {"inputs": {"x": ..., "mask": ...}, "targets": ...} is fed as model(**inputs)."""
    torch.manual_seed(0)
    x, y = _batch()
    return {"model": MaskedMLP(), "batch": {"inputs": {"x": x, "mask": torch.ones_like(x)}, "targets": y},
            "loss_fn": nn.CrossEntropyLoss(), "optimizer": lambda params: torch.optim.Adam(params, lr=1e-2)}


def forward_signature_mismatch():
    """The forward takes (x, mask) but the batch's inputs are one tensor: the call itself fails."""
    torch.manual_seed(0)
    return {"model": MaskedMLP(), "batch": _batch(), "loss_fn": nn.CrossEntropyLoss()}


class CatTwice(MLP):
    def forward(self, x):
        both = torch.cat(x, x)  # a TypeError inside the user's forward: cat wants a sequence and an int dim
        return super().forward(both)


def type_error_in_forward():
    torch.manual_seed(0)
    return {"model": CatTwice(), "batch": _batch(), "loss_fn": nn.CrossEntropyLoss()}


def prior_only():
    """Three balanced classes and inputs that carry nothing (all zero): the model can learn the label prior only.

    Its initial loss is far above chance (one class starts 40 logits ahead), so "5% of the initial loss" lies above
    the chance floor ln 3: a rule relative to the initial loss passes a model that has memorised nothing.
    No seed of its own: the verdict must not depend on the initial weights.
    """
    model = nn.Sequential(nn.Linear(N_IN, 16), nn.ReLU(), nn.Linear(16, 3))
    with torch.no_grad():
        model[2].bias[0] += 40.0
    x = torch.zeros(30, N_IN)
    y = torch.arange(30) % 3
    return {"model": model, "batch": (x, y), "loss_fn": nn.CrossEntropyLoss(),
            "optimizer": lambda params: torch.optim.SGD(params, lr=0.5)}


def unseeded_dropout():
    """A healthy model with dropout and no seed: the battery's own seed makes its runs repeat exactly."""
    model = nn.Sequential(nn.Linear(N_IN, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, N_CLASSES))
    return {"model": model, "batch": _batch(), "loss_fn": nn.CrossEntropyLoss(),
            "optimizer": lambda params: torch.optim.Adam(params, lr=1e-2)}
