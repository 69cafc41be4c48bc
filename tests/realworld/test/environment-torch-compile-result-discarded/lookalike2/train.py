import torch


def build(model, compile_model=True):
    if compile_model:
        model = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    return model, opt
