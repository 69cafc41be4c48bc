from .deepfm import DeepFM
from .fm import FM, LogisticRegression

MODELS = {"deepfm": DeepFM, "fm": FM, "lr": LogisticRegression}


def build_model(cfg, field_dims):
    if cfg.name not in MODELS:
        raise KeyError(f"unknown model {cfg.name!r}; available: {sorted(MODELS)}")
    return MODELS[cfg.name](field_dims, embed_dim=cfg.embed_dim, mlp_dims=tuple(cfg.mlp_dims), dropout=cfg.dropout)
