import torch


def save_weights(ddp_model, path):
    torch.save(ddp_model.module.state_dict(), path)


def load_weights(model, path):
    state = torch.load(path, map_location="cpu")
    result = model.load_state_dict(state, strict=False)
    return model
