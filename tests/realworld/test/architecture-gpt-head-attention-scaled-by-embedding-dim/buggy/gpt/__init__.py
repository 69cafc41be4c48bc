from .model import GPTLanguageModel

__all__ = ["GPTLanguageModel"]
