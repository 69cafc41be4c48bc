import torch
import torch.nn.functional as F


def collect_features(model, loader):
    feats = []
    with torch.no_grad():
        for img, _ in loader:
            f = model(img)
            feats.append(f.permute(0, 2, 3, 1).reshape(-1, f.shape[1]))
    return torch.cat(feats)


def run_kmeans(feats, num_clusters, n_iter=15, seed=0):
    g = torch.Generator().manual_seed(seed)
    centroids = feats[torch.randperm(len(feats), generator=g)[:num_clusters]].clone()
    for _ in range(n_iter):
        assign = (feats @ F.normalize(centroids, dim=1).t()).argmax(1)
        for k in range(num_clusters):
            members = feats[assign == k]
            if len(members):
                centroids[k] = members.mean(0)
    return centroids


def compute_labels(model, loader, centroids):
    """Assign every pixel to its nearest centroid and build CE weights from the counts."""
    num_clusters = centroids.shape[0]
    counts = torch.zeros(num_clusters)
    labels = []
    cn = F.normalize(centroids, dim=1)
    with torch.no_grad():
        for img, _ in loader:
            f = model(img)
            lab = torch.einsum("bdhw,kd->bkhw", f, cn).argmax(1)
            counts += torch.bincount(lab.flatten(), minlength=num_clusters).float()
            labels.append(lab)
    freq = counts / counts.sum()
    weight = 1.0 / (num_clusters * freq.clamp(min=1e-6))
    return torch.cat(labels), weight, counts
