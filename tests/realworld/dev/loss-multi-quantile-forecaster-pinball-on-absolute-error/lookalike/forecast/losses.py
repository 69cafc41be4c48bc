import torch


def quantile_loss(y: torch.Tensor, y_hat: torch.Tensor, quantiles: torch.Tensor) -> torch.Tensor:
    """Pinball loss averaged over batch, horizon and quantile levels.

    Under-forecasts cost q per unit, over-forecasts cost (1 - q) per unit.
    y: (batch, horizon); y_hat: (batch, horizon, n_q); quantiles: (n_q,)
    """
    target = y.unsqueeze(-1)
    delta = (target - y_hat).abs()
    q = quantiles.view(1, 1, -1)
    under = target >= y_hat
    loss = torch.where(under, q * delta, (1 - q) * delta)
    return loss.mean()
