import itertools

import torch

from config import CFG
from losses import JointsMSELoss, stack_loss, teacher_heatmaps
from models import build_student, build_teacher


def train_epoch(student, teacher, labeled_loader, unlabeled_loader, criterion, optimizer, epoch):
    student.train()
    unlabeled_iter = itertools.cycle(unlabeled_loader)
    for i, (images, target, target_weight) in enumerate(labeled_loader):
        unlabeled_images = next(unlabeled_iter)

        outputs = student(images)
        kd_target = teacher_heatmaps(teacher, images)
        gtloss = stack_loss(criterion, outputs, target, target_weight)
        tsloss = stack_loss(criterion, outputs, kd_target, target_weight)

        unl_outputs = student(unlabeled_images)
        unl_target = teacher_heatmaps(teacher, unlabeled_images)
        kdloss_unlabeled = stack_loss(criterion, unl_outputs, unl_target)

        loss_labeled = CFG["kd_alpha"] * tsloss + (1 - CFG["kd_alpha"]) * gtloss
        total_loss = loss_labeled + CFG["unkd_alpha"] * kdloss_unlabeled

        optimizer.zero_grad()
        total_loss.backward()
        optimizer.step()

        if i % CFG["print_freq"] == 0:
            print(f"epoch {epoch} iter {i} gt {gtloss.item():.6f} ts {tsloss.item():.6f} "
                  f"unlabeled {kdloss_unlabeled.item():.6f} total {total_loss.item():.6f}")


def main(labeled_loader, unlabeled_loader):
    student = build_student(CFG["num_joints"])
    teacher = build_teacher(CFG["num_joints"], CFG["teacher_ckpt"])
    criterion = JointsMSELoss(use_target_weight=True)
    optimizer = torch.optim.RMSprop(student.parameters(), lr=CFG["lr"])
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[60, 90], gamma=0.1)
    for epoch in range(CFG["epochs"]):
        train_epoch(student, teacher, labeled_loader, unlabeled_loader, criterion, optimizer, epoch)
        scheduler.step()
        torch.save(student.state_dict(), f"checkpoints/student_{epoch:03d}.pth")
