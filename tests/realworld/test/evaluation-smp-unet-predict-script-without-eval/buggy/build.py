import segmentation_models_pytorch as smp
import torch


def build_unet(cfg):
    return smp.Unet(
        encoder_name=cfg["encoder"],
        encoder_weights=None,
        in_channels=3,
        classes=cfg["classes"],
    )


def load_checkpoint(net, path, device):
    state = torch.load(path, map_location=device)
    if "model" in state:
        state = state["model"]
    net.load_state_dict({k.replace("module.", "", 1): v for k, v in state.items()})
    return net.to(device)
