import torch
from torch.utils.data import DataLoader

from pose.dataset import TopDownCocoDataset
from pose.dataset_info import FLIP_PAIRS, NUM_JOINTS
from pose.model import SimpleBaseline
from pose import transforms as T

CFG = {
    "train_ann": "data/coco/annotations/person_keypoints_train2017.json",
    "val_ann": "data/coco/annotations/person_keypoints_val2017.json",
    "train_img": "data/coco/train2017",
    "val_img": "data/coco/val2017",
    "batch_size": 64,
    "epochs": 140,
    "lr": 1e-3,
    "milestones": [90, 120],
}


def joints_mse(pred, target, weight):
    b, j = pred.shape[:2]
    pred = pred.reshape(b, j, -1)
    target = target.reshape(b, j, -1)
    return 0.5 * (((pred - target) ** 2).mean(dim=-1) * weight.squeeze(-1) ** 2).mean()


def flip_back(heatmaps, flip_pairs):
    heatmaps = heatmaps.flip(dims=[3])
    out = heatmaps.clone()
    for a, b in flip_pairs:
        out[:, a], out[:, b] = heatmaps[:, b], heatmaps[:, a]
    return out


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    total, n = 0.0, 0
    for img, target, weight in loader:
        img, target, weight = img.to(device), target.to(device), weight.to(device)
        out = model(img)
        out_flipped = flip_back(model(img.flip(dims=[3])), FLIP_PAIRS)
        out = 0.5 * (out + out_flipped)
        total += joints_mse(out, target, weight).item() * img.size(0)
        n += img.size(0)
    return total / n


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_pipeline = T.Compose([T.RandomFlip(FLIP_PAIRS, 0.5), T.RandomScaleRotate(), T.GenerateHeatmap(), T.NormalizeToTensor()])
    val_pipeline = T.Compose([T.RandomScaleRotate(scale_factor=0.0, rot_prob=0.0), T.GenerateHeatmap(), T.NormalizeToTensor()])
    train_set = TopDownCocoDataset(CFG["train_ann"], CFG["train_img"], train_pipeline)
    val_set = TopDownCocoDataset(CFG["val_ann"], CFG["val_img"], val_pipeline)
    train_loader = DataLoader(train_set, batch_size=CFG["batch_size"], shuffle=True, num_workers=8, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=CFG["batch_size"], shuffle=False, num_workers=8)

    model = SimpleBaseline(NUM_JOINTS).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, CFG["milestones"], gamma=0.1)
    for epoch in range(CFG["epochs"]):
        model.train()
        for img, target, weight in train_loader:
            img, target, weight = img.to(device), target.to(device), weight.to(device)
            loss = joints_mse(model(img), target, weight)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        print(f"epoch {epoch} val loss {evaluate(model, val_loader, device):.6f}")
        torch.save(model.state_dict(), "simple_baseline_r50.pth")


if __name__ == "__main__":
    main()
