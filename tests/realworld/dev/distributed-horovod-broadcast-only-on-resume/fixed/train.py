import argparse
import math
import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data.distributed
from torchvision import datasets, transforms

from models import wide_resnet16_4
from utils.checkpoint import clean_old, latest_epoch, save_checkpoint
from utils.metrics import Metric, accuracy

parser = argparse.ArgumentParser(description="CIFAR-10 WideResNet with Horovod")
parser.add_argument("--data-dir", default="./data")
parser.add_argument("--checkpoint-dir", default="./checkpoints")
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument("--base-lr", type=float, default=0.05)
parser.add_argument("--wd", type=float, default=5e-4)
parser.add_argument("--seed", type=int, default=42)
args = parser.parse_args()

hvd.init()
torch.cuda.set_device(hvd.local_rank())
# different seed per worker so that random crops/flips differ between workers
torch.manual_seed(args.seed + hvd.rank())

checkpoint_format = os.path.join(args.checkpoint_dir, "checkpoint-{epoch}.pth.tar")
resume_from_epoch = 0
if hvd.rank() == 0:
    resume_from_epoch = latest_epoch(checkpoint_format, args.epochs)
resume_from_epoch = hvd.broadcast(torch.tensor(resume_from_epoch), root_rank=0,
                                  name="resume_from_epoch").item()

normalize = transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616))
train_set = datasets.CIFAR10(args.data_dir, train=True, transform=transforms.Compose([
    transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(),
    transforms.ToTensor(), normalize]))
val_set = datasets.CIFAR10(args.data_dir, train=False, transform=transforms.Compose([
    transforms.ToTensor(), normalize]))
train_sampler = torch.utils.data.distributed.DistributedSampler(
    train_set, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = torch.utils.data.distributed.DistributedSampler(
    val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size,
                                           sampler=train_sampler, num_workers=4, pin_memory=True)
val_loader = torch.utils.data.DataLoader(val_set, batch_size=256, sampler=val_sampler, num_workers=4)

model = wide_resnet16_4(num_classes=10).cuda()
optimizer = optim.SGD(model.parameters(), lr=args.base_lr * hvd.size(), momentum=0.9,
                      weight_decay=args.wd, nesterov=True)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

if resume_from_epoch > 0:
    if hvd.rank() == 0:
        state = torch.load(checkpoint_format.format(epoch=resume_from_epoch), map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
# start every worker from rank 0's weights, fresh run or resumed
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def adjust_learning_rate(epoch):
    """Cosine decay of the (worker-scaled) learning rate, once per epoch."""
    lr = 0.5 * args.base_lr * hvd.size() * (1 + math.cos(math.pi * epoch / args.epochs))
    for group in optimizer.param_groups:
        group["lr"] = lr


def train(epoch):
    model.train()
    adjust_learning_rate(epoch)
    train_sampler.set_epoch(epoch)
    train_loss, train_acc = Metric("train_loss"), Metric("train_acc")
    for data, target in train_loader:
        data, target = data.cuda(non_blocking=True), target.cuda(non_blocking=True)
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
        train_loss.update(loss)
        train_acc.update(accuracy(output, target))
    return train_loss.avg, train_acc.avg


@torch.no_grad()
def validate():
    model.eval()
    val_loss, val_acc = Metric("val_loss"), Metric("val_acc")
    for data, target in val_loader:
        data, target = data.cuda(), target.cuda()
        output = model(data)
        val_loss.update(F.cross_entropy(output, target))
        val_acc.update(accuracy(output, target))
    return val_loss.avg, val_acc.avg


for epoch in range(resume_from_epoch, args.epochs):
    tr_loss, tr_acc = train(epoch)
    va_loss, va_acc = validate()
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}: train loss {tr_loss:.4f} acc {tr_acc:.4f} | "
              f"val loss {va_loss:.4f} acc {va_acc:.4f}")
    save_checkpoint(model, optimizer, checkpoint_format, epoch)
    if hvd.rank() == 0:
        clean_old(args.checkpoint_dir)
