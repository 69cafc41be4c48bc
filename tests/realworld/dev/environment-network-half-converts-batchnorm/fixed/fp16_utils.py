import torch
import torch.nn as nn


class tofp16(nn.Module):
    def forward(self, x):
        return x.half()


def BN_convert_float(module):
    if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
        module.float()
    for child in module.children():
        BN_convert_float(child)
    return module


def network_to_half(network):
    return nn.Sequential(tofp16(), BN_convert_float(network.half()))


def prep_param_lists(model):
    model_params = [p for p in model.parameters() if p.requires_grad]
    master_params = [p.detach().clone().float() for p in model_params]
    for p in master_params:
        p.requires_grad = True
    return model_params, master_params


def model_grads_to_master_grads(model_params, master_params):
    for model, master in zip(model_params, master_params):
        master.grad = model.grad.detach().float() if model.grad is not None else None


def master_params_to_model_params(model_params, master_params):
    for model, master in zip(model_params, master_params):
        model.data.copy_(master.data)
