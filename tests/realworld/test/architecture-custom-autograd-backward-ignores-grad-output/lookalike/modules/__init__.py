from .add import MyAddModule, ScaledResidual

__all__ = ["MyAddModule", "ScaledResidual"]
