import argparse
import torch
from model_loader import load_model
from env import GoBoardEnv


def play_games(net, env, n_games, device):
    wins = 0
    for g in range(n_games):
        state = env.reset(seed=g)
        done = False
        while not done:
            with torch.no_grad():
                policy_logits, value = net(state.features.unsqueeze(0).to(device))
            legal = state.legal_mask.to(device)
            move = policy_logits.masked_fill(~legal, float("-inf")).argmax(-1).item()
            state, reward, done = env.step(move)
        wins += int(reward > 0)
    return wins / n_games


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--load", required=True)
    p.add_argument("--games", type=int, default=200)
    args = p.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = load_model(args.load, device)
    net.eval()
    env = GoBoardEnv(board_size=9, opponent="gnugo")
    print(f"win rate vs gnugo: {play_games(net, env, args.games, device):.3f}")


if __name__ == "__main__":
    main()
