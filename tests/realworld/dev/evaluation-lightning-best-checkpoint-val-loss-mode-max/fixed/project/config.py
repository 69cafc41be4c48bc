"""Default hyper-parameters; a YAML file on the command line may override any of them."""
import copy

DEFAULTS = {
    "seed": 1234,
    "batch_size": 64,
    "max_epoch": 20,
    "optimizer": "adam",
    "loss": "cross_entropy",
    "lr": 1e-3,
    "hidden_dim": 128,
    "num_classes": 4,
    "early_stopping": {"metric": "val_loss", "mode": "min", "patience": 4},
    "output": "output",
}


def load_hparams(overrides=None):
    hparams = copy.deepcopy(DEFAULTS)
    for key, value in (overrides or {}).items():
        if isinstance(value, dict) and isinstance(hparams.get(key), dict):
            hparams[key].update(value)
        else:
            hparams[key] = value
    return hparams
