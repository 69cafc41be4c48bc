import math

import torch
from torch.utils.data import DataLoader, TensorDataset

from losses import AngularLoss, pitchyaw_to_vector
from model import GazeNet


def synthetic_mpiigaze(n=512, seed=0):
    g = torch.Generator().manual_seed(seed)
    gaze_py = (torch.rand(n, 2, generator=g) - 0.5) * 0.8
    head_py = (torch.rand(n, 2, generator=g) - 0.5) * 0.6
    eye = torch.randn(n, 1, 36, 60, generator=g) * 0.1
    eye[:, 0, 18, :] += gaze_py[:, :1] * 5
    eye[:, 0, :, 30] += gaze_py[:, 1:] * 5
    return TensorDataset(eye, head_py, pitchyaw_to_vector(gaze_py))


def main(epochs=10):
    torch.manual_seed(0)
    loader = DataLoader(synthetic_mpiigaze(), batch_size=32, shuffle=True)
    model = GazeNet()
    criterion = AngularLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        total = 0.0
        for eye, head_pose, gaze in loader:
            pred = model(eye, head_pose)
            loss = criterion(pred, gaze)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(eye)
        print(f"epoch {epoch}: mean angular error {math.degrees(total / len(loader.dataset)):.2f} deg")


if __name__ == "__main__":
    main()
