import torch
import torch.nn.functional as F
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torchvision.datasets import ImageFolder

from features import build_extractor, embed

TF = T.Compose([T.Resize(342), T.CenterCrop(299), T.ToTensor(),
                T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])


def retrieval_top1(gallery_dir, query_dir, device="cuda"):
    extractor = build_extractor(device)
    gallery, query = ImageFolder(gallery_dir, TF), ImageFolder(query_dir, TF)
    g = F.normalize(embed(extractor, DataLoader(gallery, batch_size=64), device), dim=1)
    q = F.normalize(embed(extractor, DataLoader(query, batch_size=64), device), dim=1)
    nearest = (q @ g.t()).argmax(dim=1)
    g_labels = torch.tensor(gallery.targets)
    q_labels = torch.tensor(query.targets)
    return (g_labels[nearest] == q_labels).float().mean().item()


if __name__ == "__main__":
    print("top-1 retrieval:", retrieval_top1("data/products/gallery", "data/products/query"))
