from .vae_objective import VAEObjective, KLObjective

__all__ = ["VAEObjective", "KLObjective"]
