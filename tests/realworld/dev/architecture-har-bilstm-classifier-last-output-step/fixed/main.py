import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

# Device configuration
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# Hyper-parameters
sequence_length = 128
input_size = 9
hidden_size = 64
num_layers = 2
num_classes = 6
batch_size = 64
num_epochs = 5
learning_rate = 0.003


def make_har_windows(n, seed):
    """Inertial-sensor windows (body acc, gyro, total acc on x/y/z) with 6 activity labels."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, num_classes, (n,), generator=g)
    t = torch.linspace(0, 1, sequence_length)
    freq = (labels.float() + 1)[:, None, None]
    onset = torch.rand(n, 1, 1, generator=g) * 0.5
    signal = torch.sin(2 * torch.pi * freq * (t[None, :, None] - onset)) * (t[None, :, None] < onset + 0.2)
    x = signal.repeat(1, 1, input_size) + 0.3 * torch.randn(n, sequence_length, input_size, generator=g)
    return TensorDataset(x, labels)


train_loader = DataLoader(make_har_windows(4000, 0), batch_size=batch_size, shuffle=True)
test_loader = DataLoader(make_har_windows(1000, 1), batch_size=batch_size, shuffle=False)


# Bidirectional recurrent neural network (many-to-one)
class BiRNN(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, num_classes):
        super(BiRNN, self).__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(hidden_size * 2, num_classes)  # 2 for bidirection

    def forward(self, x):
        h0 = torch.zeros(self.num_layers * 2, x.size(0), self.hidden_size).to(x.device)
        c0 = torch.zeros(self.num_layers * 2, x.size(0), self.hidden_size).to(x.device)

        # out: tensor of shape (batch_size, seq_length, hidden_size*2)
        out, _ = self.lstm(x, (h0, c0))

        # Decode the hidden state of the last time step
        out = self.fc(torch.cat((out[:, -1, : self.hidden_size], out[:, 0, self.hidden_size :]), dim=1))
        return out


model = BiRNN(input_size, hidden_size, num_layers, num_classes).to(device)

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

total_step = len(train_loader)
for epoch in range(num_epochs):
    for i, (windows, labels) in enumerate(train_loader):
        windows, labels = windows.to(device), labels.to(device)
        outputs = model(windows)
        loss = criterion(outputs, labels)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if (i + 1) % 20 == 0:
            print("Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}".format(epoch + 1, num_epochs, i + 1, total_step, loss.item()))

model.eval()
with torch.no_grad():
    correct = 0
    total = 0
    for windows, labels in test_loader:
        windows, labels = windows.to(device), labels.to(device)
        predicted = model(windows).argmax(1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
    print("Test Accuracy of the model on the {} test windows: {} %".format(total, 100 * correct / total))

torch.save(model.state_dict(), "model.ckpt")
