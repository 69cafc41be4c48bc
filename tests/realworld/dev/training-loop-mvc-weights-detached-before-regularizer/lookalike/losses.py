import torch


class AllLosses:
    def __init__(self, opt):
        self.opt = opt
        self.loss = {}

    def mvc_reg_loss(self, weights):
        return (torch.relu(-weights) ** 2).sum(-1).mean()

    def __call__(self, all_inputs, all_outputs):
        self.loss = {}
        self.loss["CD"] = chamfer(all_outputs["deformed"], all_inputs["target_shape"]) * self.opt.loss_weight
        self.loss["WREG"] = self.mvc_reg_loss(all_outputs["weight"]) * self.opt.mvc_weight
        return sum(self.loss.values())


def chamfer(a, b):
    d = torch.cdist(a, b)
    return d.min(2)[0].mean() + d.min(1)[0].mean()
