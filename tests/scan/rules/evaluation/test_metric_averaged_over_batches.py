"""The ``metric-averaged-over-batches`` rule (``mlsleuth/scan/rules/evaluation/metric_averaged_over_batches.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"metric-averaged-over-batches"}


def test_count_of_correct_predictions_divided_by_the_number_of_batches():
    src = """
        import torch

        def evaluate(model, data_loader):
            model.eval()
            correct = 0
            with torch.no_grad():
                for batch in data_loader:
                    preds = model(batch["x"]).argmax(dim=1)
                    correct += torch.sum(preds == batch["y"]).item()
            return correct / len(data_loader)  # expect: metric-averaged-over-batches
        """
    check(src, RULE)


def test_mean_of_per_batch_accuracies_by_list_and_by_running_sum():
    src = """
        import numpy as np
        import torch

        def evaluate(model, loader):
            batch_acc = []
            for x, y in loader:
                batch_acc.append((model(x).argmax(1) == y).float().mean().item())  # expect: metric-averaged-over-batches
            return float(np.mean(batch_acc))

        def evaluate_sum(model, testloader):
            accuracy = 0
            for images, labels in testloader:
                equals = model(images).argmax(1) == labels
                accuracy += torch.mean(equals.type(torch.FloatTensor))  # expect: metric-averaged-over-batches
            print(f"acc {accuracy / len(testloader):.3f}")
        """
    check(src, RULE)


def test_weighting_by_the_configured_batch_size():
    src = """
        def run_epoch(net, loader, args):
            sum_acc, n_seen = 0.0, 0
            for x, y in loader:
                acc = (net(x).argmax(1) == y).float().mean()
                sum_acc += acc.item() * args.batchsize  # expect: metric-averaged-over-batches
                n_seen += y.size(0)
            return sum_acc / n_seen
        """
    check(src, RULE)


def test_per_sample_counting_and_full_batches_are_fine():
    src = """
        import numpy as np
        import torch
        from torch.utils.data import DataLoader
        from torchvision import datasets

        def evaluate(model, loader):
            correct = total = 0
            for x, y in loader:
                correct += (model(x).argmax(1) == y).sum().item()
                total += y.size(0)
            return correct / total

        def weighted(model, loader):
            acc_sum, n = 0.0, 0
            for x, y in loader:
                acc_sum += (model(x).argmax(1) == y).float().mean().item() * y.size(0)
                n += y.size(0)
            return acc_sum / n

        def mean_loss(model, loader, crit):
            losses = []
            for x, y in loader:
                losses.append(crit(model(x), y).item())
            return np.mean(losses)

        def exact(model):
            test = datasets.FashionMNIST("data", train=False, download=True)
            testloader = DataLoader(test, batch_size=100)
            acc = 0.0
            for x, y in testloader:
                acc += (model(x).argmax(1) == y).float().mean()
            return acc / len(testloader)

        def dropped(model, dataset, batch_size):
            loader = DataLoader(dataset, batch_size=batch_size, drop_last=True)
            acc = []
            for x, y in loader:
                acc.append((model(x).argmax(1) == y).float().mean().item())
            return np.mean(acc)
        """
    check(src, RULE)


def test_weighted_by_the_drawn_batchs_own_size_stays_silent():
    # a neighbour-sampled graph loader: each drawn batch carries the number of its seed nodes
    src = """
        import torch.nn.functional as F

        def train(model, loader, optimizer, args):
            total_loss = total_examples = correct = 0
            for batch in loader:
                optimizer.zero_grad()
                out = model(batch.x, batch.edge_index)[:batch.batch_size]
                loss = F.cross_entropy(out, batch.y[:batch.batch_size])
                loss.backward()
                optimizer.step()
                total_loss += float(loss) * batch.batch_size
                correct += int((out.argmax(-1) == batch.y[:batch.batch_size]).sum())
                total_examples += batch.batch_size
            return total_loss / total_examples, correct / total_examples, len(loader)

        def train_cfg(model, loader, optimizer, args):
            total_loss = total_examples = 0
            for batch in loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(model(batch.x, batch.edge_index), batch.y)
                loss.backward()
                optimizer.step()
                total_loss += float(loss) * args.batch_size  # expect: metric-averaged-over-batches
                total_examples += args.batch_size
            return total_loss / total_examples
        """
    check(src, RULE)
