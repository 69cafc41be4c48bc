"""The ``loss-accumulated-with-graph`` rule (``mlsleuth/scan/rules/training_loop/loss_accumulated_with_graph.py``)."""

from __future__ import annotations

from scan.helpers import check

LOSS = {"loss-accumulated-with-graph", "loss-rewrapped-after-graph-cut"}
ZG = {"missing-zero-grad", "zero-grad-between-backward-and-step", "step-before-backward"}


def test_total_loss_accumulates_graph():
    src = """
        def train(model, loader, opt, crit):
            total_loss = 0.0
            history = []
            for x, y in loader:
                opt.zero_grad()
                loss = crit(model(x), y)
                loss.backward()
                opt.step()
                total_loss += loss  # expect: loss-accumulated-with-graph
                history.append(loss)  # expect: loss-accumulated-with-graph
            return total_loss / len(loader)
        """
    check(src, LOSS)


def test_total_loss_with_item_detach_float_and_backprop_of_sum_are_fine():
    check(
        """
        def a(model, loader, opt, crit):
            total, n = 0.0, 0
            losses = []
            for x, y in loader:
                opt.zero_grad()
                loss = crit(model(x), y)
                loss.backward()
                opt.step()
                total += loss.item()
                n += loss.detach() * 2
                losses.append(float(loss))

        def b(model, loader, opt, crit):
            for x, y in loader:
                opt.zero_grad()
                loss = crit(model(x), y)
                loss.backward()
                opt.step()
                loss = loss.item()
                running = 0.0
                running += loss

        def c(model, chunks, opt, crit):
            for batch in chunks:
                opt.zero_grad()
                total = 0
                for x, y in batch:
                    part = crit(model(x), y)
                    total += part
                total.backward()
                opt.step()
        """,
        LOSS,
    )


def test_detached_target_network_is_fine():
    check(
        """
        import torch
        import torch.nn.functional as F

        def dqn(q_net, target_net, batches, opt, gamma):
            for s, a, r, s2 in batches:
                with torch.no_grad():
                    target = r + gamma * target_net(s2).max(1).values
                q = q_net(s).gather(1, a)
                loss = F.smooth_l1_loss(q, target.detach())
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        LOSS | ZG,
    )


def test_total_reset_at_every_optimizer_step_only_spans_the_accumulation_window():
    src = """
        def train(model, loader, optimizer, accum):
            running_loss = 0
            for idx, batch in enumerate(loader):
                loss = model(batch).mean() / accum
                running_loss += loss
                loss.backward()
                if (idx + 1) % accum == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                    print(running_loss.item())
                    running_loss = 0
        """
    check(src, {"loss-accumulated-with-graph"})


def test_total_reset_once_per_epoch_still_grows_over_the_epoch():
    src = """
        def train(model, loader, optimizer, epochs):
            for epoch in range(epochs):
                running_loss = 0
                for batch in loader:
                    loss = model(batch).mean()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    running_loss += loss  # expect: loss-accumulated-with-graph
                print(running_loss / len(loader))
        """
    check(src, {"loss-accumulated-with-graph"})


def test_helper_that_returns_the_loss_as_a_number_is_not_a_graph():
    src = """
        class Trainer:
            def train_step(self, batch):
                loss = self.model(batch).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                return loss.item()

            def fit(self, batches):
                history = []
                for batch in batches:
                    loss = self.train_step(batch)
                    history.append(loss)
                return history
        """
    check(src, {"loss-accumulated-with-graph"})


def test_helper_that_returns_the_loss_tensor_still_keeps_the_graph():
    src = """
        class Trainer:
            def train_step(self, batch):
                loss = self.model(batch).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                return loss

            def fit(self, batches):
                history = []
                for batch in batches:
                    loss = self.train_step(batch)
                    history.append(loss)  # expect: loss-accumulated-with-graph
                return history
        """
    check(src, {"loss-accumulated-with-graph"})


def test_running_sum_filled_under_no_grad_stays_silent():
    # a distributed loop sums the loss into a device buffer for an all-reduce, inside no_grad
    src = """
        import torch
        import torch.distributed as dist

        def epoch(model, loader, optimizer, criterion, rank):
            total = torch.zeros(2, device=rank)
            running = 0
            for data in loader:
                logits = model(data.x)
                loss = criterion(logits, data.y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                with torch.no_grad():
                    total[0] += loss * logits.size(0)
                    total[1] += data.num_graphs
                running += loss  # expect: loss-accumulated-with-graph
            dist.all_reduce(total)
            return total[0] / total[1]
        """
    check(src, LOSS)
