import torch
import torch.nn as nn


def mean_value_coordinates_3D(query, cage, faces):
    v = cage[:, faces]
    d = v - query[:, :, None, None, :]
    r = d.norm(dim=-1).clamp_min(1e-8)
    u = d / r[..., None]
    w = torch.det(u).abs() / r.prod(dim=-1)
    w = w.unsqueeze(-1).expand(*w.shape, 3)
    weights = torch.zeros(query.shape[0], query.shape[1], cage.shape[1], device=query.device)
    weights.scatter_add_(2, faces.view(1, 1, -1).expand(query.shape[0], query.shape[1], -1), w.flatten(2))
    return weights / weights.sum(-1, keepdim=True)


def deform_with_MVC(cage, cage_deformed, cage_face, query):
    weights = mean_value_coordinates_3D(query, cage, cage_face)
    deformed = torch.einsum("bnc,bcd->bnd", weights, cage_deformed)
    return deformed, weights
