"""The ``loop-variable-clobbered-by-inner-loop`` rule (``.../training_loop/loop_variable_clobbered_by_inner_loop.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"loop-variable-clobbered-by-inner-loop"}


def test_inner_loop_overwrites_a_variable_read_after_it():
    src = """
    import torch

    def train(model, loader, opt, log_every, accum):
        for i, (x, y) in enumerate(loader):
            for i in range(accum):
                model(x[i]).sum().backward()
            if i % log_every == 0:  # expect: loop-variable-clobbered-by-inner-loop
                print("step", i)
            opt.step()

    def augment_all(batches, transforms):
        out = []
        for batch in batches:
            for t in transforms:
                for batch in t(batch):
                    pass
            out.append(batch)  # expect: loop-variable-clobbered-by-inner-loop
        return out

    def run(env, policy, episodes):
        for ep in range(episodes):
            obs = env.reset()
            for ep in range(200):
                obs, r, done, _ = env.step(policy(obs))
            torch.save(policy.state_dict(), f"ckpt_{ep}.pt")  # expect: loop-variable-clobbered-by-inner-loop
    """
    check(src, RULE)


def test_own_names_rebinding_and_other_branches_are_fine():
    src = """
    def train(model, loader, opt, accum):
        for i, (x, y) in enumerate(loader):
            for j in range(accum):
                model(x[j]).sum().backward()
            print(i)

    def inner_only(groups):
        for g in groups:
            for g in g.members:
                print(g)

    def rebound(rows):
        for row in rows:
            for row in row.children:
                pass
            row = rows[0]
            print(row)

    def branches(items, flat):
        for item in items:
            if flat:
                for item in item.parts:
                    print(item)
            else:
                print(item)

    def rows_to_ids(files, idx):
        for i in range(0, len(files), 5):
            for i, line in enumerate(files[i]):
                print(i, line)
            ids = [idx[i] for i in files]
            print(ids)

    def comprehension(items):
        for x in items:
            ys = [x for x in range(3)]
            print(x, ys)
    """
    check(src, RULE)
