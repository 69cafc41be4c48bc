import numpy as np


class Data:
    """Synthetic knowledge graph with the same interface as the FB15k/WN18 loaders."""

    def __init__(self, num_entities=64, num_relations=4, seed=0):
        rng = np.random.default_rng(seed)
        self.entities = [f"/m/e{i:03d}" for i in range(num_entities)]
        self.relations = [f"/rel/r{i}" for i in range(num_relations)]
        data = []
        for r, rel in enumerate(self.relations):
            mult = int(rng.integers(2, 9)) * 2 + 1
            shift = int(rng.integers(0, num_entities))
            for h in range(num_entities):
                t = (h * mult + shift) % num_entities
                data.append([self.entities[h], rel, self.entities[t]])
        rng.shuffle(data)
        self.train_data = [list(x) for x in data]
        self.data = self.train_data
        self.train_relations = self.get_relations(self.train_data)

    @staticmethod
    def get_relations(data):
        return sorted(list(set([d[1] for d in data])))
