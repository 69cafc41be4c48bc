import copy

import torch


class Trainer:
    def __init__(self, train_model, train_triples, valid_triples, n_ent, alpha=0.05, batch=64,
                 train_times=150, valid_every=10):
        self.trainModel = train_model
        self.train_triples = train_triples
        self.valid_triples = valid_triples
        self.n_ent = n_ent
        self.batch = batch
        self.train_times = train_times
        self.valid_every = valid_every
        self.optimizer = torch.optim.SGD(self.trainModel.parameters(), lr=alpha)
        self.best_model = None
        self.best_hit = -1.0

    def corrupt(self, triples):
        neg = triples.clone()
        swap_head = torch.rand(len(triples)) < 0.5
        rand_ent = torch.randint(0, self.n_ent, (len(triples),))
        neg[swap_head, 0] = rand_ent[swap_head]
        neg[~swap_head, 2] = rand_ent[~swap_head]
        return neg

    def train_one_step(self, pos):
        self.optimizer.zero_grad()
        loss = self.trainModel(pos, self.corrupt(pos))
        loss.backward()
        self.optimizer.step()
        return loss.item()

    @torch.no_grad()
    def hits_at_10(self, triples):
        all_t = torch.arange(self.n_ent)
        hits = 0
        for h, r, t in triples.tolist():
            scores = self.trainModel.score(torch.full_like(all_t, h), torch.full_like(all_t, r), all_t)
            hits += int((scores < scores[t]).sum().item() < 10)
        return hits / len(triples)

    def run(self):
        n = len(self.train_triples)
        for epoch in range(self.train_times):
            perm = torch.randperm(n)
            res = 0.0
            for i in range(0, n, self.batch):
                res += self.train_one_step(self.train_triples[perm[i:i + self.batch]])
            if (epoch + 1) % self.valid_every == 0:
                hit = self.hits_at_10(self.valid_triples)
                print(f"epoch {epoch + 1:3d}  loss {res:.3f}  valid hits@10 {hit:.3f}")
                if hit > self.best_hit:
                    self.best_hit = hit
                    self.best_model = copy.deepcopy(self.trainModel.state_dict())
        self.trainModel.load_state_dict(self.best_model)
        return self.best_hit
