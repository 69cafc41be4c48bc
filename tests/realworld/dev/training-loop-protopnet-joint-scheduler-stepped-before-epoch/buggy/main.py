import argparse

import torch

import push
import train_and_test as tnt
from model import construct_PPNet
from settings import (coefs, joint_lr_step_size, joint_optimizer_lrs, last_layer_optimizer_lr, num_train_epochs,
                      num_warm_epochs, push_epochs, push_start)
from data import get_loaders

parser = argparse.ArgumentParser()
parser.add_argument("-gpuid", type=str, default="0")
args = parser.parse_args()

train_loader, train_push_loader, test_loader = get_loaders()
ppnet = construct_PPNet(base_architecture="resnet50", pretrained=True, img_size=224, prototype_shape=(2000, 128, 1, 1),
                        num_classes=200)
ppnet_multi = torch.nn.DataParallel(ppnet)

joint_optimizer_specs = [
    {"params": ppnet.features.parameters(), "lr": joint_optimizer_lrs["features"], "weight_decay": 1e-3},
    {"params": ppnet.add_on_layers.parameters(), "lr": joint_optimizer_lrs["add_on_layers"], "weight_decay": 1e-3},
    {"params": ppnet.prototype_vectors, "lr": joint_optimizer_lrs["prototype_vectors"]},
]
joint_optimizer = torch.optim.Adam(joint_optimizer_specs)
joint_lr_scheduler = torch.optim.lr_scheduler.StepLR(joint_optimizer, step_size=joint_lr_step_size, gamma=0.1)

warm_optimizer = torch.optim.Adam([
    {"params": ppnet.add_on_layers.parameters(), "lr": 3e-3, "weight_decay": 1e-3},
    {"params": ppnet.prototype_vectors, "lr": 3e-3},
])
last_layer_optimizer = torch.optim.Adam([{"params": ppnet.last_layer.parameters(), "lr": last_layer_optimizer_lr}])

for epoch in range(num_train_epochs):
    print(f"epoch: \t{epoch}")
    if epoch < num_warm_epochs:
        tnt.warm_only(model=ppnet_multi)
        tnt.train(model=ppnet_multi, dataloader=train_loader, optimizer=warm_optimizer, coefs=coefs)
    else:
        tnt.joint(model=ppnet_multi)
        joint_lr_scheduler.step()
        tnt.train(model=ppnet_multi, dataloader=train_loader, optimizer=joint_optimizer, coefs=coefs)

    accu = tnt.test(model=ppnet_multi, dataloader=test_loader)
    if epoch >= push_start and epoch in push_epochs:
        push.push_prototypes(train_push_loader, prototype_network_parallel=ppnet_multi)
        tnt.last_only(model=ppnet_multi)
        for i in range(20):
            tnt.train(model=ppnet_multi, dataloader=train_loader, optimizer=last_layer_optimizer, coefs=coefs)
