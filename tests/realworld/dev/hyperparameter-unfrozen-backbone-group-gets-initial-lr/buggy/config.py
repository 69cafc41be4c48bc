CONFIG = {
    "lr": 0.3,
    "momentum": 0.9,
    "lr_gamma": 0.6,
    "epochs": 12,
    "unfreeze_epoch": 6,
    "batch_size": 32,
    "seed": 0,
}
