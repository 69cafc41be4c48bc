import torch
import torch.nn as nn
import torch.nn.functional as F


def make_data(n=2000, d=16, k=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    w = torch.randn(d, k, generator=g)
    return x, w


class Student(nn.Module):
    def __init__(self, d=16, k=5):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, k))

    def forward(self, x):
        return self.net(x)


def distill_loss(student_logits, teacher_logits, T=2.0):
    kl = nn.KLDivLoss(reduction="batchmean")
    return kl(F.softmax(student_logits / T, dim=-1), F.softmax(teacher_logits / T, dim=-1)) * T * T


@torch.no_grad()
def true_kl(student, x, teacher_logits, T=2.0):
    p_t = F.softmax(teacher_logits / T, dim=-1)
    log_s = F.log_softmax(student(x) / T, dim=-1)
    return (p_t * (p_t.log() - log_s)).sum(-1).mean().item()


def main():
    torch.manual_seed(0)
    x, w = make_data()
    teacher_logits = (x @ w) * 0.5
    student = Student()
    opt = torch.optim.Adam(student.parameters(), lr=3e-3)
    for step in range(300):
        idx = torch.randint(0, len(x), (128,))
        loss = distill_loss(student(x[idx]), teacher_logits[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0 or step == 299:
            agree = (student(x).argmax(1) == teacher_logits.argmax(1)).float().mean().item()
            print(f"step {step:3d} loss {loss.item():.4f} KL(teacher||student) {true_kl(student, x, teacher_logits):.4f} agree {agree:.3f}")


if __name__ == "__main__":
    main()
