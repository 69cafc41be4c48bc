import torch


def save_weights(ddp_model, path):
    torch.save(ddp_model.module.state_dict(), path)


def load_weights(model, path):
    state = torch.load(path, map_location="cpu")
    # the checkpoint also carries an optional calibration head that older models lack
    result = model.load_state_dict(state, strict=False)
    assert not result.missing_keys, result.missing_keys
    return model
