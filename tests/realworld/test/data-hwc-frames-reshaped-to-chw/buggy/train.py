import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from dataset import DemoDataset
from policy import DensePolicy


def train(policy, loader, optimizer, epochs, device):
    policy.train()
    for epoch in range(epochs):
        for batch in loader:
            pred = policy(batch["img_top"].to(device), batch["img_hand"].to(device), batch["qpos"].to(device))
            loss = F.l1_loss(pred, batch["actions"].to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    device = "cuda"
    loader = DataLoader(DemoDataset("demos/"), batch_size=64, shuffle=True, num_workers=8)
    policy = DensePolicy().to(device)
    optimizer = torch.optim.AdamW(policy.parameters(), lr=1e-4, weight_decay=1e-4)
    train(policy, loader, optimizer, epochs=500, device=device)
