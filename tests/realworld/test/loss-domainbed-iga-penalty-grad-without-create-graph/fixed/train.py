import argparse

import torch

import algorithms
import hparams_registry


def make_environments(n_envs=3, n=2000, dim=10):
    """Colored-MNIST-like synthetic environments: a spurious feature whose correlation changes per env."""
    envs = []
    for e in range(n_envs):
        y = torch.randint(0, 2, (n,))
        causal = y.float()[:, None] + 0.75 * torch.randn(n, dim // 2)
        flip = torch.rand(n) < (0.1 + 0.2 * e)
        spurious = torch.where(flip, 1 - y, y).float()[:, None] + 0.1 * torch.randn(n, dim // 2)
        envs.append((torch.cat([causal, spurious], 1), y))
    return envs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--algorithm", default="IGA")
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--test_env", type=int, default=2)
    args = parser.parse_args()

    hparams = hparams_registry.default_hparams(args.algorithm)
    envs = make_environments()
    train_envs = [e for i, e in enumerate(envs) if i != args.test_env]
    algorithm = algorithms.get_algorithm_class(args.algorithm)((10,), 2, len(train_envs), hparams)

    bs = hparams["batch_size"]
    for step in range(args.steps):
        minibatches = []
        for x, y in train_envs:
            idx = torch.randint(0, len(x), (bs,))
            minibatches.append((x[idx], y[idx]))
        stats = algorithm.update(minibatches)
        if step % 500 == 0:
            x_te, y_te = envs[args.test_env]
            with torch.no_grad():
                acc = (algorithm.predict(x_te).argmax(1) == y_te).float().mean().item()
            print(step, {k: round(v, 4) for k, v in stats.items()}, "test acc", round(acc, 3))


if __name__ == "__main__":
    main()
