import torch
import torch.nn as nn

from at import AT
from config import get_arguments
from data_loader import get_backdoor_loader, get_test_loader
from models.selector import select_model
from utils.util import AverageMeter, accuracy


def train_step(opt, train_loader, nets, optimizer, criterions, epoch):
    at_losses = AverageMeter()
    top1 = AverageMeter()
    snet = nets["snet"]
    tnet = nets["tnet"]
    criterionCls = criterions["criterionCls"]
    criterionAT = criterions["criterionAT"]
    snet.train()
    for idx, (img, target) in enumerate(train_loader, start=1):
        img, target = img.cuda(), target.cuda()
        activation1_s, activation2_s, activation3_s, output_s = snet(img)
        with torch.no_grad():
            activation1_t, activation2_t, activation3_t, _ = tnet(img)
        cls_loss = criterionCls(output_s, target)
        at2_loss = criterionAT(activation2_s, activation2_t.detach()) * opt.beta2
        at3_loss = criterionAT(activation3_s, activation3_t.detach()) * opt.beta3
        at_loss = at2_loss + at3_loss + cls_loss
        prec1, _ = accuracy(output_s, target, topk=(1, 5))
        at_losses.update(at_loss.item(), img.size(0))
        top1.update(prec1.item(), img.size(0))
        optimizer.zero_grad()
        at_loss.backward()
        optimizer.step()
        if idx % opt.print_freq == 0:
            print(f"Epoch[{epoch}]:[{idx}/{len(train_loader)}] AT_loss {at_losses.val:.4f}({at_losses.avg:.4f}) "
                  f"Prec@1 {top1.val:.2f}({top1.avg:.2f})")


def main():
    opt = get_arguments().parse_args()
    teacher = select_model(opt.t_name, opt.t_model, pretrained=True).cuda()
    student = select_model(opt.s_name, opt.s_model, pretrained=True).cuda()
    nets = {"snet": student, "tnet": teacher}
    for p in teacher.parameters():
        p.requires_grad = False
    optimizer = torch.optim.SGD(student.parameters(), lr=opt.lr, momentum=opt.momentum, weight_decay=opt.weight_decay,
                                nesterov=True)
    criterions = {"criterionCls": nn.CrossEntropyLoss().cuda(), "criterionAT": AT(opt.p)}
    train_loader = get_backdoor_loader(opt)
    for epoch in range(opt.epochs):
        train_step(opt, train_loader, nets, optimizer, criterions, epoch + 1)


if __name__ == "__main__":
    main()
