import copy

import torch
import torch.nn.functional as F

from momentum import MomentumUpdater


def adapt(student, source_loader, target_loader, num_steps, lr=1e-3, ema_every=1):
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad_(False)
    updater = MomentumUpdater(base_tau=0.99)
    optimizer = torch.optim.SGD(student.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)

    step = 0
    for (src_x, src_y), (tgt_x, _) in zip(source_loader, target_loader):
        student.train()
        teacher.train()
        with torch.no_grad():
            pseudo = teacher(tgt_x).argmax(1)
        loss = F.cross_entropy(student(src_x), src_y) + F.cross_entropy(student(tgt_x), pseudo)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % ema_every == 0:
            updater.update(student, teacher)
            updater.update_tau(step, num_steps)
        step += 1
        if step >= num_steps:
            break
    return teacher
