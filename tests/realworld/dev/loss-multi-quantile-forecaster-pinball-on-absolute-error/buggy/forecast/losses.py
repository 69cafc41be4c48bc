import torch


def quantile_loss(y: torch.Tensor, y_hat: torch.Tensor, quantiles: torch.Tensor) -> torch.Tensor:
    """Pinball loss averaged over batch, horizon and quantile levels.

    y: (batch, horizon); y_hat: (batch, horizon, n_q); quantiles: (n_q,)
    """
    delta = y_hat - y.unsqueeze(-1)
    q = quantiles.view(1, 1, -1)
    loss = torch.maximum(q * delta.abs(), (q - 1) * delta.abs())
    return loss.mean()
