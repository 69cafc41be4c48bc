from .dlinear import DLinear
from .patch_mlp import PatchMLP

MODELS = {"dlinear": DLinear, "patch_mlp": PatchMLP}


def build_model(model_cfg, data_cfg):
    try:
        cls = MODELS[model_cfg.name]
    except KeyError as exc:
        raise KeyError(f"unknown model {model_cfg.name!r}; choose from {sorted(MODELS)}") from exc
    return cls(
        seq_len=data_cfg.seq_len,
        pred_len=data_cfg.pred_len,
        n_channels=data_cfg.n_channels,
        kernel_size=model_cfg.kernel_size,
        individual=model_cfg.individual,
        hidden=model_cfg.hidden,
        patch_len=model_cfg.patch_len,
        dropout=model_cfg.dropout,
        revin=model_cfg.revin,
    )
