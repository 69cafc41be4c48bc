from .add import MyAddFunction, MyScaleFunction

__all__ = ["MyAddFunction", "MyScaleFunction"]
