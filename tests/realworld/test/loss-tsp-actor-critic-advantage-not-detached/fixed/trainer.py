import argparse

import torch
import torch.nn.functional as F

from models import ActorCritic
from tsp import generate_batch, tour_length


class Trainer:
    def __init__(self, args, device):
        self.args = args
        self.device = device
        self.model = ActorCritic(args.dim).to(device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=args.lr)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=5000, gamma=0.96)

    def train_step(self):
        cities = generate_batch(self.args.batch_size, self.args.n_cities, self.device)
        tours, log_prob, predictions = self.model(cities)
        reward = tour_length(cities, tours)

        advantage = reward - predictions.detach()
        actor_loss = torch.mean(advantage * log_prob)
        critic_loss = F.mse_loss(predictions, reward)
        loss = actor_loss + critic_loss

        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.scheduler.step()
        return reward.mean().item(), actor_loss.item(), critic_loss.item()

    @torch.no_grad()
    def evaluate(self, n_batches=10):
        self.model.eval()
        lengths = []
        for _ in range(n_batches):
            cities = generate_batch(256, self.args.n_cities, self.device)
            tours, _, _ = self.model(cities, greedy=True)
            lengths.append(tour_length(cities, tours).mean().item())
        self.model.train()
        return sum(lengths) / len(lengths)

    def run(self):
        for step in range(1, self.args.steps + 1):
            reward, a_loss, c_loss = self.train_step()
            if step % 500 == 0:
                print(f"step {step}: tour {reward:.3f} actor {a_loss:.3f} critic {c_loss:.3f} "
                      f"greedy eval {self.evaluate():.3f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_cities", type=int, default=20)
    parser.add_argument("--batch_size", type=int, default=256)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--steps", type=int, default=20000)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    Trainer(args, device).run()


if __name__ == "__main__":
    main()
