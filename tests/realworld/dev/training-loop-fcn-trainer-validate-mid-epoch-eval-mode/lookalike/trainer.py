import math
import os
import os.path as osp

import numpy as np
import torch
import torch.nn.functional as F
import tqdm

import fcn_utils


def cross_entropy2d(input, target, weight=None, size_average=True):
    n, c, h, w = input.size()
    log_p = F.log_softmax(input, dim=1)
    loss = F.nll_loss(log_p, target, weight=weight, ignore_index=-1, reduction="sum")
    if size_average:
        loss /= (target >= 0).sum().item()
    return loss


class Trainer(object):
    def __init__(self, model, optimizer, train_loader, val_loader, out, max_iter, interval_validate=None):
        self.model = model
        self.optim = optimizer
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.out = out
        self.interval_validate = interval_validate or len(self.train_loader)
        self.epoch = 0
        self.iteration = 0
        self.max_iter = max_iter
        self.best_mean_iu = 0

    def validate(self):
        self.model.eval()
        n_class = len(self.val_loader.dataset.class_names)
        val_loss = 0
        label_trues, label_preds = [], []
        for data, target in tqdm.tqdm(self.val_loader, desc="Valid iteration=%d" % self.iteration, leave=False):
            with torch.no_grad():
                score = self.model(data)
            val_loss += cross_entropy2d(score, target).item() / len(data)
            label_preds.extend(score.max(1)[1].cpu().numpy())
            label_trues.extend(target.cpu().numpy())
        metrics = fcn_utils.label_accuracy_score(label_trues, label_preds, n_class)
        mean_iu = metrics[2]
        if mean_iu > self.best_mean_iu:
            self.best_mean_iu = mean_iu
            torch.save({"iteration": self.iteration, "model_state_dict": self.model.state_dict()},
                       osp.join(self.out, "model_best.pth.tar"))
        return val_loss / len(self.val_loader), mean_iu

    def train_epoch(self):
        self.model.train()
        for batch_idx, (data, target) in tqdm.tqdm(enumerate(self.train_loader), total=len(self.train_loader),
                                                   desc="Train epoch=%d" % self.epoch, leave=False):
            iteration = batch_idx + self.epoch * len(self.train_loader)
            if self.iteration != 0 and (iteration - 1) != self.iteration:
                continue
            self.iteration = iteration
            if self.iteration % self.interval_validate == 0:
                self.validate()
                self.model.train()

            self.optim.zero_grad()
            score = self.model(data)
            loss = cross_entropy2d(score, target) / len(data)
            if np.isnan(loss.item()):
                raise ValueError("loss is nan while training")
            loss.backward()
            self.optim.step()
            if self.iteration >= self.max_iter:
                break

    def train(self):
        max_epoch = int(math.ceil(1. * self.max_iter / len(self.train_loader)))
        for epoch in tqdm.trange(self.epoch, max_epoch, desc="Train", ncols=80):
            self.epoch = epoch
            self.train_epoch()
            if self.iteration >= self.max_iter:
                break
