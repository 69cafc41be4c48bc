import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, net, train_loader, epochs, max_lr):
        self.net = net
        self.train_loader = train_loader
        self.epochs = epochs
        self.opt = torch.optim.SGD(net.parameters(), lr=max_lr, momentum=0.9, nesterov=True)
        self.sched = torch.optim.lr_scheduler.OneCycleLR(
            self.opt, max_lr=max_lr, epochs=epochs, steps_per_epoch=len(train_loader)
        )

    def training_step(self, x, y):
        loss = F.cross_entropy(self.net(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()

    def on_epoch_end(self, epoch, mean_loss):
        self.sched.step()
        print(f"epoch {epoch} loss {mean_loss:.4f} lr {self.opt.param_groups[0]['lr']:.2e}")

    def fit(self):
        for epoch in range(self.epochs):
            self.net.train()
            losses = [self.training_step(x, y) for x, y in self.train_loader]
            self.on_epoch_end(epoch, sum(losses) / len(losses))
