import torch
import torchvision

from kd_loss import DistillationObjective


def distill(student, teacher, loader, epochs=200, lr=0.05, device="cuda"):
    teacher.eval().to(device)
    student.to(device)
    objective = DistillationObjective(temperature=4.0, alpha=0.9)
    opt = torch.optim.SGD(student.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4, nesterov=True)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, [100, 150], 0.1)
    for epoch in range(epochs):
        student.train()
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            with torch.no_grad():
                t_logits = teacher(images)
            loss = objective(student(images), t_logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()


if __name__ == "__main__":
    teacher = torchvision.models.resnet50(num_classes=100)
    teacher.load_state_dict(torch.load("teacher_cifar100.pt"))
    student = torchvision.models.resnet18(num_classes=100)
    tf = torchvision.transforms.Compose([torchvision.transforms.RandomCrop(32, 4), torchvision.transforms.RandomHorizontalFlip(), torchvision.transforms.ToTensor()])
    ds = torchvision.datasets.CIFAR100("data", train=True, download=True, transform=tf)
    distill(student, teacher, torch.utils.data.DataLoader(ds, batch_size=128, shuffle=True, num_workers=4))
