"""The ``loss-terms-reduced-differently`` rule (``mlsleuth/scan/rules/loss/loss_terms_reduced_differently.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"loss-terms-reduced-differently"}


def test_element_mean_added_to_a_full_sum():
    src = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    def vae_loss(recon_x, x, mu, logvar):
        recon = F.mse_loss(recon_x, x)
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())  # expect: loss-terms-reduced-differently
        return recon + kld

    def image_vae_loss(recon, x, mu, logvar):
        bce = F.binary_cross_entropy(recon, x.view(-1, 784))
        return bce - 0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum()  # expect: loss-terms-reduced-differently

    class AudioAutoencoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.recon_loss = nn.L1Loss()

        def loss(self, wav_hat, wav, z_mean, z_logvar):
            rec = self.recon_loss(wav_hat, wav)
            kl = torch.sum(z_logvar.exp() + z_mean ** 2 - 1.0 - z_logvar) * 0.5  # expect: loss-terms-reduced-differently
            return rec + kl

    def tabular_objective(pred, y, residual):
        fit = ((pred - y) ** 2).mean()
        penalty = torch.sum(residual ** 2)  # expect: loss-terms-reduced-differently
        total = fit + penalty
        return total

    def sparse_coding(model, x):
        codes = model.encode(x)
        recon = model.decode(codes)
        return F.smooth_l1_loss(recon, x) + codes.abs().sum()  # expect: loss-terms-reduced-differently
    """
    check(src, RULE)


def test_compensated_or_matching_reductions_stay_silent():
    src = """
    import torch
    import torch.nn.functional as F

    def both_sums(recon_x, x, mu, logvar):
        recon = F.mse_loss(recon_x, x, reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return recon + kld

    def rescaled_terms(recon_x, x, mu, logvar):
        recon = F.mse_loss(recon_x, x) * x[0].numel()
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
        return recon + kld

    def beta_weighted(recon_x, x, mu, logvar, beta):
        recon = F.mse_loss(recon_x, x)
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return recon + beta * kld

    def small_literal_weight(recon_x, x, mu, logvar):
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return F.mse_loss(recon_x, x) + 1e-4 * kld

    def whole_sum_divided(recon_x, x, mu, logvar, n):
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return (F.mse_loss(recon_x, x) + kld) / n

    def both_means(recon_x, x, mu, logvar):
        kld = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
        return F.mse_loss(recon_x, x) + kld

    def weight_regulariser(model, pred, y):
        l2 = torch.sum(model.fc.weight ** 2)
        return F.mse_loss(pred, y) + l2

    def regulariser_over_parameters(model, pred, y):
        reg = 0.0
        for p in model.parameters():
            reg = reg + torch.sum(p ** 2)
        return F.mse_loss(pred, y) + reg

    def kl_rescaled_later(recon_x, x, mu, logvar):
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        kld = kld / x.size(0)
        return F.mse_loss(recon_x, x) + kld

    def count_not_loss(pred, y):
        correct = (pred.argmax(1) == y).sum()
        return F.mse_loss(pred, y), correct + 1
    """
    check(src, RULE)


def test_terms_from_helpers_of_the_project(tmp_path):
    check_project(
        tmp_path,
        {
            "losses.py": """
            import torch
            import torch.nn.functional as F

            def kl_divergence(mu, logvar):
                return -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())

            def reconstruction(x_hat, x):
                return F.mse_loss(x_hat, x)

            def l2_penalty(w):
                return torch.sum(w ** 2)
            """,
            "train.py": """
            import torch.nn.functional as F
            from losses import kl_divergence, reconstruction, l2_penalty

            def step(model, x):
                x_hat, mu, logvar = model(x)
                return reconstruction(x_hat, x) + kl_divergence(mu, logvar)  # expect: loss-terms-reduced-differently

            def ridge(model, x, y):
                return F.mse_loss(model(x), y) + l2_penalty(model.linear.weight)

            def summed_l1_with_mean_mse(pred, y, aux_pred, aux_y):
                return F.l1_loss(pred, y, reduction="sum") + F.mse_loss(aux_pred, aux_y)  # expect: loss-terms-reduced-differently
            """,
        },
        RULE,
    )
