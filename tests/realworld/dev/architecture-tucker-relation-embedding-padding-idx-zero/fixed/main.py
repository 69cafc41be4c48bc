import argparse
from collections import defaultdict

import numpy as np
import torch

from load_data import Data
from model import TuckER


class Experiment:
    def __init__(self, learning_rate=0.005, ent_vec_dim=32, rel_vec_dim=16, num_iterations=5,
                 batch_size=32, decay_rate=0.0, label_smoothing=0.1,
                 input_dropout=0.0, hidden_dropout1=0.0, hidden_dropout2=0.0):
        self.learning_rate = learning_rate
        self.ent_vec_dim = ent_vec_dim
        self.rel_vec_dim = rel_vec_dim
        self.num_iterations = num_iterations
        self.batch_size = batch_size
        self.decay_rate = decay_rate
        self.label_smoothing = label_smoothing
        self.kwargs = {"input_dropout": input_dropout, "hidden_dropout1": hidden_dropout1,
                       "hidden_dropout2": hidden_dropout2}

    def get_data_idxs(self, data):
        return [(self.entity_idxs[d[0]], self.relation_idxs[d[1]], self.entity_idxs[d[2]]) for d in data]

    def get_er_vocab(self, data):
        er_vocab = defaultdict(list)
        for triple in data:
            er_vocab[(triple[0], triple[1])].append(triple[2])
        return er_vocab

    def get_batch(self, er_vocab, er_vocab_pairs, idx, num_entities):
        batch = er_vocab_pairs[idx:idx + self.batch_size]
        targets = np.zeros((len(batch), num_entities))
        for i, pair in enumerate(batch):
            targets[i, er_vocab[pair]] = 1.
        return np.array(batch), torch.FloatTensor(targets)

    def evaluate_by_relation(self, model, data_idxs, num_relations):
        model.eval()
        hits = np.zeros(num_relations)
        counts = np.zeros(num_relations)
        with torch.no_grad():
            t = torch.tensor(data_idxs)
            pred = model(t[:, 0], t[:, 1])
            top1 = pred.argmax(dim=1)
            for (h, r, tail), p in zip(data_idxs, top1.tolist()):
                hits[r] += float(p == tail)
                counts[r] += 1
        model.train()
        return hits / np.maximum(counts, 1)

    def train_and_eval(self, d):
        print("Training the TuckER model...")
        self.entity_idxs = {d.entities[i]: i for i in range(len(d.entities))}
        self.relation_idxs = {d.relations[i]: i for i in range(len(d.relations))}
        train_data_idxs = self.get_data_idxs(d.train_data)
        print("Number of training data points: %d" % len(train_data_idxs))

        model = TuckER(d, self.ent_vec_dim, self.rel_vec_dim, **self.kwargs)
        model.init()
        opt = torch.optim.Adam(model.parameters(), lr=self.learning_rate)
        if self.decay_rate:
            scheduler = torch.optim.lr_scheduler.ExponentialLR(opt, self.decay_rate)

        er_vocab = self.get_er_vocab(train_data_idxs)
        er_vocab_pairs = list(er_vocab.keys())

        model.train()
        for it in range(1, self.num_iterations + 1):
            losses = []
            np.random.shuffle(er_vocab_pairs)
            for j in range(0, len(er_vocab_pairs), self.batch_size):
                data_batch, targets = self.get_batch(er_vocab, er_vocab_pairs, j, len(d.entities))
                opt.zero_grad()
                e1_idx = torch.tensor(data_batch[:, 0])
                r_idx = torch.tensor(data_batch[:, 1])
                predictions = model.forward(e1_idx, r_idx)
                if self.label_smoothing:
                    targets = ((1.0 - self.label_smoothing) * targets) + (1.0 / targets.size(1))
                loss = model.loss(predictions, targets)
                loss.backward()
                opt.step()
                losses.append(loss.item())
            if self.decay_rate:
                scheduler.step()
            print(it, np.mean(losses))

        acc = self.evaluate_by_relation(model, train_data_idxs, len(d.relations))
        for r, a in enumerate(acc):
            print(f"relation {d.relations[r]}: train hits@1 {a:.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_iterations", type=int, default=8)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args()

    torch.manual_seed(20)
    np.random.seed(20)
    d = Data()
    experiment = Experiment(num_iterations=args.num_iterations, batch_size=args.batch_size,
                            learning_rate=args.lr)
    experiment.train_and_eval(d)
