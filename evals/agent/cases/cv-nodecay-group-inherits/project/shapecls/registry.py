MODELS = {}
DATASETS = {}


def register(table: dict, name: str):
    def deco(fn):
        table[name] = fn
        return fn
    return deco


def create(table: dict, name: str, **kwargs):
    try:
        factory = table[name]
    except KeyError:
        raise KeyError(f"{name!r} not registered; choose from {sorted(table)}") from None
    return factory(**kwargs)
