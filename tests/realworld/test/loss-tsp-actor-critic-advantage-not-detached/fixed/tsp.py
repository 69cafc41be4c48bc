import torch


def generate_batch(batch_size, n_cities, device="cpu"):
    return torch.rand(batch_size, n_cities, 2, device=device)


def tour_length(cities, tours):
    ordered = torch.gather(cities, 1, tours.unsqueeze(-1).expand(-1, -1, 2))
    rolled = torch.roll(ordered, shifts=-1, dims=1)
    return (ordered - rolled).norm(dim=-1).sum(dim=1)
