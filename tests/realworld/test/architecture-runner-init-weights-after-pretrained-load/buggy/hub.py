import torch
from config import Config
from registry import MODELS


def load_checkpoint(model, path):
    state = torch.load(path, map_location="cpu")
    state = state.get("state_dict", state)
    missing, unexpected = model.load_state_dict(state, strict=False)
    print(f"loaded {path}: {len(missing)} missing, {len(unexpected)} unexpected keys")


def get_model(cfg_path, pretrained=False, **kwargs):
    cfg = Config.fromfile(cfg_path)
    model = MODELS.build(cfg.model, default_args=kwargs)
    if pretrained:
        load_checkpoint(model, cfg.model_path)
    return model
