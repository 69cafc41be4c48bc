from .clap import CLAP, build_model  # noqa: F401
