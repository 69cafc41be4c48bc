import torch
import torch.nn as nn
from torchvision.models import resnet50

from fp16_utils import (master_params_to_model_params, model_grads_to_master_grads, network_to_half,
                        prep_param_lists)


def main(train_loader, epochs=90, lr=0.1, loss_scale=128.0):
    model = network_to_half(resnet50().cuda())
    model_params, master_params = prep_param_lists(model)
    optimizer = torch.optim.SGD(master_params, lr=lr, momentum=0.9, weight_decay=1e-4)
    criterion = nn.CrossEntropyLoss().cuda()
    for epoch in range(epochs):
        model.train()
        for images, target in train_loader:
            images, target = images.cuda(non_blocking=True), target.cuda(non_blocking=True)
            output = model(images)
            loss = criterion(output.float(), target)
            model.zero_grad()
            (loss * loss_scale).backward()
            model_grads_to_master_grads(model_params, master_params)
            for p in master_params:
                p.grad.data.mul_(1.0 / loss_scale)
            optimizer.step()
            master_params_to_model_params(model_params, master_params)
