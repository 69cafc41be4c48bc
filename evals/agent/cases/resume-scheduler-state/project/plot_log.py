"""Print a coarse text view of loss and learning rate from runs/*/metrics.json."""
import argparse
import json


def main():
    p = argparse.ArgumentParser()
    p.add_argument("metrics", nargs="?", default="runs/surrogate/metrics.json")
    p.add_argument("--every", type=int, default=32)
    args = p.parse_args()
    with open(args.metrics) as f:
        steps = json.load(f)["steps"]
    for rec in steps[:: args.every]:
        bar = "#" * min(60, int(rec["loss"] * 200))
        print(f"step {rec['step']:5d} ep {rec['epoch']} lr {rec['lr']:.2e} loss {rec['loss']:.4f} {bar}")


if __name__ == "__main__":
    main()
