import toml
import torch

from models import LipRead
from training import Trainer
from validation import Validator

options = toml.loads(open("options.toml").read())
model = LipRead(options)
if options["general"]["usecudnn"]:
    torch.cuda.manual_seed(options["general"]["random_seed"])
    model = model.cuda(options["general"]["gpuid"])

trainer = Trainer(options)
validator = Validator(options)
for epoch in range(options["training"]["startepoch"], options["training"]["epochs"]):
    if options["training"]["train"]:
        trainer.epoch(model, epoch)
    if options["validation"]["validate"]:
        validator.epoch(model)
