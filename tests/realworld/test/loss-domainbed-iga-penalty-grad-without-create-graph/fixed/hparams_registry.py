def default_hparams(algorithm):
    hparams = {
        "lr": 5e-5,
        "weight_decay": 0.0,
        "batch_size": 32,
        "mlp_width": 256,
        "mlp_depth": 3,
        "mlp_dropout": 0.0,
    }
    if algorithm == "IGA":
        hparams["penalty"] = 1000.0
    elif algorithm == "SAM":
        hparams["rho"] = 0.05
    return hparams
