"""Two-level label hierarchy for the CIFAR-100 style experiment (superclass -> subclass)."""

NUM_SUPERCLASSES = 20
NUM_SUBCLASSES = 100

# subclass id -> superclass id; every superclass owns five consecutive fine labels
SUBCLASS_TO_SUPERCLASS = {sub: sub // 5 for sub in range(NUM_SUBCLASSES)}

hierarchy = {}
for _sub, _sup in SUBCLASS_TO_SUPERCLASS.items():
    hierarchy.setdefault(_sup, []).append(_sub)
