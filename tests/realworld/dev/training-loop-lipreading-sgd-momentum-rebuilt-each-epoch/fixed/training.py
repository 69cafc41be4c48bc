import math
from datetime import datetime

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader

from data import LipreadingDataset


class Trainer():
    def __init__(self, options):
        self.trainingdataset = LipreadingDataset(options["training"]["dataset"], "train")
        self.trainingdataloader = DataLoader(self.trainingdataset, batch_size=options["input"]["batchsize"],
                                             shuffle=options["input"]["shuffle"],
                                             num_workers=options["input"]["numworkers"], drop_last=True)
        self.usecudnn = options["general"]["usecudnn"]
        self.batchsize = options["input"]["batchsize"]
        self.statsfrequency = options["training"]["statsfrequency"]
        self.gpuid = options["general"]["gpuid"]
        self.learningrate = options["training"]["learningrate"]
        self.modelType = options["training"]["learningrate"]
        self.weightdecay = options["training"]["weightdecay"]
        self.momentum = options["training"]["momentum"]
        self.optimizer = None

    def learningRate(self, epoch):
        decay = math.floor((epoch - 1) / 5)
        return self.learningrate * pow(0.5, decay)

    def epoch(self, model, epoch):
        criterion = model.loss()
        if self.optimizer is None:
            self.optimizer = optim.SGD(model.parameters(), lr=self.learningRate(epoch), momentum=self.momentum,
                                       weight_decay=self.weightdecay)
        optimizer = self.optimizer
        for group in optimizer.param_groups:
            group["lr"] = self.learningRate(epoch)
        validator_function = model.validator_function()
        startTime = datetime.now()
        print("Starting training...")
        for i_batch, sample_batched in enumerate(self.trainingdataloader):
            optimizer.zero_grad()
            input = sample_batched["temporalvolume"]
            labels = sample_batched["label"]
            if self.usecudnn:
                input = input.cuda(self.gpuid)
                labels = labels.cuda(self.gpuid)
            outputs = model(input)
            loss = criterion(outputs, labels.squeeze(1))
            loss.backward()
            optimizer.step()
            sampleNumber = i_batch * self.batchsize
            if sampleNumber % self.statsfrequency == 0:
                print(f"[{epoch}] {sampleNumber}/{len(self.trainingdataset)} loss {loss.item():.4f} "
                      f"elapsed {datetime.now() - startTime}")
        print("Epoch completed, saving state...")
        torch.save(model.state_dict(), "trainedmodel.pt")
