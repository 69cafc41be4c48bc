import math

import torch
import torch.nn as nn

# Parameters
learning_rate = 0.05
num_steps = 300
batch_size = 128
display_step = 50

# Network Parameters
n_hidden_1 = 64
n_hidden_2 = 64
num_input = 2
num_classes = 2


def make_rings(n, seed):
    g = torch.Generator().manual_seed(seed)
    label = torch.randint(0, num_classes, (n,), generator=g)
    radius = 1.0 + 1.5 * label.float() + 0.25 * torch.randn(n, generator=g)
    angle = 2 * math.pi * torch.rand(n, generator=g)
    x = torch.stack([radius * torch.cos(angle), radius * torch.sin(angle)], dim=1)
    return x, label


class NeuralNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer_1 = nn.Linear(num_input, n_hidden_1)
        self.layer_2 = nn.Linear(n_hidden_1, n_hidden_2)
        # low-rank classifier head: project to a small bottleneck, then to the classes
        self.bottleneck = nn.Linear(n_hidden_2, 8, bias=False)
        self.out_layer = nn.Linear(8, num_classes)

    def forward(self, x):
        h1 = torch.relu(self.layer_1(x))
        h2 = torch.relu(self.layer_2(h1))
        z = self.bottleneck(h2)
        return self.out_layer(z)


def accuracy(logits, y):
    return (logits.argmax(dim=1) == y).float().mean().item()


if __name__ == "__main__":
    torch.manual_seed(1)
    x_train, y_train = make_rings(4000, seed=1)
    x_test, y_test = make_rings(1000, seed=2)
    neural_net = NeuralNet()
    loss_op = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(neural_net.parameters(), lr=learning_rate)

    for step in range(1, num_steps + 1):
        idx = torch.randint(0, len(x_train), (batch_size,))
        batch_x, batch_y = x_train[idx], y_train[idx]
        logits = neural_net(batch_x)
        loss = loss_op(logits, batch_y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % display_step == 0 or step == 1:
            print(f"Step {step}, Minibatch Loss= {loss.item():.4f}, Training Accuracy= {accuracy(logits, batch_y):.3f}")

    print("Optimization Finished!")
    with torch.no_grad():
        print(f"Testing Accuracy: {accuracy(neural_net(x_test), y_test):.3f}")
