"""The ``loop-exits-on-first-pass`` rule (``mlsleuth/scan/rules/training_loop/loop_exits_on_first_pass.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

RULE = {"loop-exits-on-first-pass"}


def test_return_or_break_at_the_end_of_a_repeating_body():
    src = """
    import torch

    def evaluate(model, loader):
        correct, seen = 0, 0
        with torch.no_grad():
            for x, y in loader:
                correct += (model(x).argmax(1) == y).sum().item()
                seen += len(y)
                return correct / seen  # expect: loop-exits-on-first-pass

    def train(model, loader, opt, epochs):
        for epoch in range(epochs):
            for batch in loader:
                opt.zero_grad()
                model(batch).mean().backward()
                opt.step()
            break  # expect: loop-exits-on-first-pass

    def collect_features(encoder, clips):
        feats = []
        for wav in clips:
            with torch.no_grad():
                feats.append(encoder(wav))
                return torch.stack(feats)  # expect: loop-exits-on-first-pass

    def rollout_returns(policy, env, episodes):
        returns = []
        for ep in range(episodes):
            obs, done, total = env.reset(), False, 0.0
            while not done:
                obs, reward, done, _ = env.step(policy(obs))
                total += reward
            returns.append(total)
            return returns  # expect: loop-exits-on-first-pass

    def confusion(model, rows, k):
        cm = torch.zeros(k, k)
        for features, label in rows:
            cm[label, model(features).argmax()] += 1
            return cm  # expect: loop-exits-on-first-pass

    def train_one_epoch(model, loader, opt):
        for x, y in loader:
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()

    def main(model, loader, opt, epochs):
        for epoch in range(epochs):
            train_one_epoch(model, loader, opt)
            return model  # expect: loop-exits-on-first-pass

    def fit(model, data, opt, max_steps):
        step = 0
        while step < max_steps:
            loss = model(data).mean()
            loss.backward()
            opt.step()
            step += 1
            break  # expect: loop-exits-on-first-pass
    """
    check(src, RULE)
    assert "runs once" in messages(src, "loop-exits-on-first-pass")[0].message


def test_guarded_exits_single_batch_fetches_and_searches_are_fine():
    src = """
    import torch

    def evaluate(model, loader, args):
        correct, seen = 0, 0
        for i, (x, y) in enumerate(loader):
            correct += (model(x).argmax(1) == y).sum().item()
            seen += len(y)
            if args.debug:
                break
        return correct / seen

    def train(model, loader, opt, max_steps, patience):
        step, bad = 0, 0
        for batch in loader:
            model(batch).mean().backward()
            opt.step()
            step += 1
            if step >= max_steps or bad > patience:
                break

    def first_batch(loader):
        for x, y in loader:
            break
        return x, y

    def peek(loader):
        for batch in loader:
            print(batch.shape)
            return batch

    def find(model_dir, names):
        found = []
        for name in names:
            if not name.endswith(".pt"):
                continue
            found.append(name)
            break
        return found

    def retry(fetch, n):
        errors = 0
        for attempt in range(n):
            try:
                data = fetch()
            except OSError:
                errors += 1
                continue
            return data

    def search(xs, target):
        hits = 0
        for x in xs:
            hits += x == target
            break
        else:
            return None
        return hits

    def evaluate_one(model, loader):
        for epoch in range(3):
            score = model.evaluate(loader)
            return score

    def top_level_files(root):
        import os
        files = []
        for _, _, names in os.walk(root):
            files.extend(names)
            break
        return files

    def first_rows(rows):
        kept = []
        for row in rows:
            kept.append(row)
            break
        return kept

    def once(model, x, opt):
        total = 0
        while True:
            total += model(x).sum()
            break
        return total
    """
    check(src, RULE)
