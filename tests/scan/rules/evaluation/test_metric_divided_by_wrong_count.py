"""The ``metric-divided-by-wrong-count`` rule (``mlsleuth/scan/rules/evaluation/metric_divided_by_wrong_count.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, findings

RULE = {"metric-divided-by-wrong-count"}
BOTH = RULE | {"metric-averaged-over-batches"}


# -- sums of per-batch means divided by a number of samples --------------------------------------


def test_vision_mean_reduced_loss_summed_then_divided_by_the_dataset_length():
    src = """
        import torch
        import torch.nn.functional as F

        def test(model, device, test_loader):
            model.eval()
            test_loss = 0
            correct = 0
            with torch.no_grad():
                for data, target in test_loader:
                    output = model(data.to(device))
                    test_loss += F.nll_loss(output, target.to(device)).item()
                    pred = output.argmax(dim=1, keepdim=True)
                    correct += pred.eq(target.view_as(pred)).sum().item()
            test_loss /= len(test_loader.dataset)  # expect: metric-divided-by-wrong-count
            return test_loss, 100.0 * correct / len(test_loader.dataset)
        """
    check(src, RULE)
    (found,) = findings(src, "metric-divided-by-wrong-count")
    assert "one mean per batch" in found.message and "counts samples" in found.message


def test_nlp_model_output_loss_divided_by_the_eval_dataset():
    src = """
        def evaluate(model, eval_dataloader, eval_dataset):
            model.eval()
            eval_loss = 0.0
            for step, batch in enumerate(eval_dataloader):
                outputs = model(**batch)
                eval_loss += outputs.loss.detach().float()
            per_sample = eval_loss / len(eval_dataset)  # expect: metric-divided-by-wrong-count
            per_batch = eval_loss / (step + 1)
            return per_sample, per_batch
        """
    check(src, RULE)


def test_criterion_passed_as_a_parameter_and_a_per_sample_count_as_denominator():
    src = """
        import torch.nn as nn

        def run_epoch(net, loader, loss_fn, opt):
            total, seen = 0.0, 0
            for feats, target in loader:
                opt.zero_grad()
                loss = loss_fn(net(feats), target)
                loss.backward()
                opt.step()
                total += loss.item()
                seen += target.size(0)
            return total / seen  # expect: metric-divided-by-wrong-count

        def main(net, train_loader, opt):
            return run_epoch(net, train_loader, nn.SmoothL1Loss(), opt)
        """
    check(src, RULE)


# -- sums over samples divided by a number of batches ---------------------------------------------


def test_tabular_loss_weighted_by_batch_size_divided_by_the_number_of_batches():
    src = """
        import torch.nn as nn

        def train_epoch(model, loader, opt):
            crit = nn.MSELoss()
            running = 0.0
            for xb, yb in loader:
                opt.zero_grad()
                loss = crit(model(xb), yb)
                loss.backward()
                opt.step()
                running += loss.item() * xb.size(0)
            return running / len(loader)  # expect: metric-divided-by-wrong-count
        """
    check(src, RULE)
    (found,) = findings(src, "metric-divided-by-wrong-count")
    assert "batch_size times too large" in found.message


def test_audio_sum_reduced_loss_on_a_class_attribute_over_a_batch_counter():
    src = """
        import torch.nn as nn

        class Evaluator:
            def __init__(self, model, loader):
                self.model = model
                self.loader = loader
                self.criterion = nn.CTCLoss(reduction="sum")

            def run(self):
                total_loss = 0
                n_batches = 0
                for wav, labels, in_lens, lab_lens in self.loader:
                    log_probs = self.model(wav)
                    loss = self.criterion(log_probs, labels, in_lens, lab_lens)
                    total_loss += loss.item()
                    n_batches += 1
                return total_loss / n_batches  # expect: metric-divided-by-wrong-count
        """
    check(src, RULE)


def test_correct_count_over_the_enumerate_index():
    src = """
        def score(model, val_loader):
            hits = 0
            for i, (x, y) in enumerate(val_loader):
                hits += (model(x).argmax(-1) == y).sum().item()
            return hits / (i + 1)  # expect: metric-divided-by-wrong-count
        """
    check(src, RULE)


def test_count_of_correct_answers_over_len_loader_is_left_to_the_sibling_rule():
    src = """
        def evaluate(model, loader):
            correct = 0
            for x, y in loader:
                correct += (model(x).argmax(1) == y).sum().item()
            return correct / len(loader)  # expect: metric-averaged-over-batches
        """
    check(src, BOTH)


# -- sums over part of the data divided by the whole -----------------------------------------------


def test_subset_random_sampler_accuracy_divided_by_the_whole_dataset():
    src = """
        from torch.utils.data import DataLoader, SubsetRandomSampler

        def validate(model, full, val_idx):
            val_loader = DataLoader(full, batch_size=64, sampler=SubsetRandomSampler(val_idx))
            correct = 0
            for x, y in val_loader:
                correct += (model(x).argmax(1) == y).sum().item()
            wrong = correct / len(val_loader.dataset)  # expect: metric-divided-by-wrong-count
            right = correct / len(val_idx)
            also_right = correct / len(val_loader.sampler)
            return wrong, right, also_right
        """
    check(src, RULE)
    (found,) = findings(src, "metric-divided-by-wrong-count")
    assert "SubsetRandomSampler" in found.message


def test_break_after_some_batches_divided_by_the_whole_dataset_and_all_batches():
    src = """
        import torch.nn as nn

        def quick_eval(model, loader, max_batches=10):
            crit = nn.CrossEntropyLoss()
            correct, loss_sum = 0, 0.0
            for i, (x, y) in enumerate(loader):
                if i >= max_batches:
                    break
                out = model(x)
                correct += (out.argmax(1) == y).sum().item()
                loss_sum += crit(out, y).item()
            acc = correct / len(loader.dataset)  # expect: metric-divided-by-wrong-count
            loss = loss_sum / len(loader)  # expect: metric-divided-by-wrong-count
            return acc, loss
        """
    check(src, RULE)


def test_loader_over_a_subset_divided_by_the_length_of_its_base_dataset():
    src = """
        from torch.utils.data import DataLoader, random_split

        def held_out_error(model, full):
            train_part, val_part = random_split(full, [0.8, 0.2])
            loader = DataLoader(val_part, batch_size=32)
            errors = 0
            for x, y in loader:
                errors += (model(x).argmax(1) != y).sum().item()
            return errors / len(full), errors / len(val_part)  # expect: metric-divided-by-wrong-count
        """
    check(src, RULE)


# -- clean look-alikes ---------------------------------------------------------------------------------


def test_matching_units_stay_silent():
    src = """
        import torch.nn as nn
        import torch.nn.functional as F

        def evaluate(model, loader):
            crit = nn.CrossEntropyLoss()
            tl, tc, tt, batch_loss, nb = 0.0, 0, 0, 0.0, 0
            for x, y in loader:
                out = model(x)
                loss = crit(out, y)
                tl += loss.item() * x.size(0)
                tc += (out.argmax(1) == y).sum().item()
                tt += y.size(0)
                batch_loss += loss.item()
                nb += 1
            return tl / len(loader.dataset), tc / tt, tl / tt, batch_loss / len(loader), batch_loss / nb

        def test(model, test_loader):
            test_loss = 0
            for data, target in test_loader:
                test_loss += F.nll_loss(model(data), target, reduction="sum").item()
            test_loss /= len(test_loader.dataset)
            return test_loss
        """
    check(src, RULE)


def test_one_sample_batches_make_a_mean_a_per_sample_value():
    src = """
        import torch.nn as nn
        from torch.utils.data import DataLoader

        def per_item_loss(model, dataset):
            loader = DataLoader(dataset)
            crit = nn.MSELoss()
            total = 0.0
            for x, y in loader:
                total += crit(model(x), y).item()
            return total / len(dataset)
        """
    check(src, RULE)


def test_unknown_losses_counts_alone_and_conditional_updates_stay_silent():
    src = """
        def evaluate(model, loader, compute_loss):
            total, seen, flagged, batches = 0.0, 0, 0.0, 0
            for x, y in loader:
                total += compute_loss(model(x), y).item()
                seen += y.size(0)
                batches += 1
                if y.sum() > 0:
                    flagged += (model(x).argmax(1) == y).sum().item()
            mean_batch = seen / len(loader)
            return total / len(loader.dataset), mean_batch, flagged / len(loader), seen / batches
        """
    check(src, RULE)


def test_subset_sampler_over_its_own_length_and_a_subset_over_its_own_dataset():
    src = """
        from torch.utils.data import DataLoader, Subset, SubsetRandomSampler

        def validate(model, full, val_idx):
            sampler = SubsetRandomSampler(val_idx)
            val_loader = DataLoader(full, batch_size=64, sampler=sampler)
            correct = 0
            for x, y in val_loader:
                correct += (model(x).argmax(1) == y).sum().item()
            return correct / len(sampler), correct / len(val_idx)

        def held_out(model, full, idx):
            part = Subset(full, idx)
            loader = DataLoader(part, batch_size=16)
            correct = 0
            for x, y in loader:
                correct += (model(x).argmax(1) == y).sum().item()
            return correct / len(loader.dataset), correct / len(part)
        """
    check(src, RULE)


def test_a_dry_run_break_and_a_rescaled_quotient_stay_silent():
    src = """
        import torch.nn as nn

        def train(model, loader, opt, args):
            crit = nn.CrossEntropyLoss()
            running = 0.0
            for x, y in loader:
                loss = crit(model(x), y)
                running += loss.item()
                if args.dry_run:
                    break
            return running / len(loader), running / len(loader.dataset) * args.batch_size
        """
    check(src, RULE)


def test_torchmetrics_and_lightning_logging_stay_silent():
    pytest_src = """
        import torch.nn.functional as F
        import torchmetrics
        import lightning as L

        class Model(L.LightningModule):
            def __init__(self, net):
                super().__init__()
                self.net = net
                self.acc = torchmetrics.Accuracy(task="multiclass", num_classes=10)

            def validation_step(self, batch, batch_idx):
                x, y = batch
                out = self.net(x)
                loss = F.cross_entropy(out, y)
                self.acc(out, y)
                self.log("val_loss", loss, on_epoch=True)
                self.log("val_acc", self.acc, on_epoch=True)
        """
    check(pytest_src, RULE)


def test_sum_reset_each_batch_is_not_a_running_sum():
    src = """
        import torch.nn.functional as F

        def log_batches(model, loader, writer):
            for step, (x, y) in enumerate(loader):
                batch_loss = 0.0
                batch_loss += F.cross_entropy(model(x), y).item()
                writer.add_scalar("loss", batch_loss / len(y), step)
        """
    check(src, RULE)


def test_per_batch_accuracy_from_a_helper_summed_then_divided_by_the_samples():
    src = """
        def batch_accuracy(logits, labels):
            correct = (logits.argmax(dim=1) == labels).sum()
            return correct / labels.size(0)

        def evaluate(model, val_loader):
            acc_sum = 0.0
            for images, labels in val_loader:
                acc_sum += batch_accuracy(model(images), labels).item()
            return acc_sum / len(val_loader.dataset)  # expect: metric-divided-by-wrong-count
        """
    check(src, RULE)


def test_rl_behaviour_cloning_losses_collected_in_a_list():
    src = """
        import numpy as np
        import torch.nn.functional as F

        def bc_epoch(policy, expert_loader, expert_dataset, opt):
            losses = []
            for obs, act in expert_loader:
                loss = F.cross_entropy(policy(obs), act)
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.item())
            per_sample = sum(losses) / len(expert_dataset)  # expect: metric-divided-by-wrong-count
            per_batch = sum(losses) / len(losses)
            return per_sample, per_batch, np.mean(losses)
        """
    check(src, RULE)


def test_weighted_list_over_its_own_length_is_a_sum_over_batches():
    src = """
        import torch.nn.functional as F

        def epoch(model, loader):
            weighted = []
            for x, y in loader:
                weighted.append(F.mse_loss(model(x), y).item() * x.size(0))
            return sum(weighted) / len(weighted)  # expect: metric-divided-by-wrong-count
        """
    check(src, RULE)


def test_one_process_shard_divided_by_the_whole_dataset_unless_the_ranks_are_combined():
    src = """
        import torch
        import torch.distributed as dist
        from torch.utils.data import DataLoader, DistributedSampler

        def evaluate(model, test_set):
            loader = DataLoader(test_set, batch_size=128, sampler=DistributedSampler(test_set, shuffle=False))
            correct = 0
            for x, y in loader:
                correct += (model(x).argmax(1) == y).sum().item()
            return correct / len(loader.dataset)  # expect: metric-divided-by-wrong-count

        def evaluate_reduced(model, test_set):
            loader = DataLoader(test_set, batch_size=128, sampler=DistributedSampler(test_set, shuffle=False))
            correct = 0
            for x, y in loader:
                correct += (model(x).argmax(1) == y).sum().item()
            t = torch.tensor([correct], device="cuda")
            dist.all_reduce(t)
            correct = t.item()
            return correct / len(loader.dataset)
        """
    check(src, RULE)


def test_count_of_correct_answers_through_names_is_reported_here():
    src = """
        def evaluate(model, loader):
            correct = 0
            n_batches = len(loader)
            for x, y in loader:
                hits = (model(x).argmax(1) == y).sum()
                correct += hits.item()
            return correct / n_batches  # expect: metric-divided-by-wrong-count
        """
    check(src, BOTH)


def test_accuracy_helper_and_loss_module_from_other_modules(tmp_path):
    check_project(
        tmp_path,
        {
            "metrics.py": """
                def batch_acc(scores, target):
                    return (scores.argmax(-1) == target).float().mean()
                """,
            "losses.py": """
                import torch.nn as nn

                def make_criterion():
                    return nn.L1Loss(reduction="sum")
                """,
            "evaluate.py": """
                from metrics import batch_acc

                def evaluate(model, loader, criterion):
                    acc, err, seen = 0.0, 0.0, 0
                    for x, y in loader:
                        out = model(x)
                        acc += batch_acc(out, y).item()
                        err += criterion(out, y).item()
                        seen += y.size(0)
                    return acc / seen, err / seen  # expect: metric-divided-by-wrong-count
                """,
        },
        RULE,
    )


def test_names_reused_by_a_training_and_a_validation_loop_with_a_module_level_criterion():
    src = """
        import torch
        import torch.nn as nn

        def train_model(model, criterion, optimizer, epochs, train_loader, val_loader):
            for epoch in range(epochs):
                model.train()
                running_loss = 0.0
                running_corrects = 0
                for i, (inputs, labels) in enumerate(train_loader):
                    optimizer.zero_grad()
                    outputs = model(inputs)
                    loss = criterion(outputs, labels)
                    loss.backward()
                    optimizer.step()
                    running_loss += loss.item()
                    running_corrects += torch.sum(outputs.argmax(1) == labels).item()
                train_loss = running_loss / len(train_loader.dataset)  # expect: metric-divided-by-wrong-count
                train_acc = running_corrects / len(train_loader.dataset) * 100
                model.eval()
                running_loss = 0.0
                running_corrects = 0
                for i, (inputs, labels) in enumerate(val_loader):
                    with torch.no_grad():
                        outputs = model(inputs)
                        loss = criterion(outputs, labels)
                    running_loss += loss.item() * inputs.size(0)
                    running_corrects += torch.sum(outputs.argmax(1) == labels).item()
                val_loss = running_loss / len(val_loader.dataset)
                val_acc = running_corrects / len(val_loader.dataset) * 100
            return train_loss, train_acc, val_loss, val_acc

        model = nn.Linear(4, 2)
        criterion = nn.CrossEntropyLoss()
        train_model(model, criterion, torch.optim.SGD(model.parameters(), lr=0.1), 3, None, None)
        """
    check(src, RULE)


def test_script_level_train_validation_split_by_samplers_over_one_dataset():
    src = """
        import numpy as np
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, SubsetRandomSampler

        dataset = MyDataset("data/")
        indices = list(range(len(dataset)))
        np.random.shuffle(indices)
        split = int(0.2 * len(dataset))
        train_idx, val_idx = indices[split:], indices[:split]
        train_loader = DataLoader(dataset, batch_size=32, sampler=SubsetRandomSampler(train_idx))
        val_loader = DataLoader(dataset, batch_size=32, sampler=SubsetRandomSampler(val_idx))
        model = nn.Linear(8, 3)
        criterion = nn.CrossEntropyLoss()

        for epoch in range(10):
            val_loss, correct = 0.0, 0
            with torch.no_grad():
                for x, y in val_loader:
                    out = model(x)
                    val_loss += criterion(out, y).item() * x.size(0)
                    correct += (out.argmax(1) == y).sum().item()
            print(val_loss / len(val_loader.dataset), correct / len(val_loader.dataset))  # expect: metric-divided-by-wrong-count
            print(val_loss / len(val_idx), correct / len(val_idx))
        """
    check(src, RULE)
    assert len(findings(src, "metric-divided-by-wrong-count")) == 2


def test_mean_losses_over_number_of_batches_times_batch_size():
    src = """
        import torch.nn as nn

        def fit(model, train_loader, opt, args):
            crit = nn.HuberLoss()
            epoch_loss, weighted = 0.0, 0.0
            for seq, target in train_loader:
                opt.zero_grad()
                loss = crit(model(seq), target)
                loss.backward()
                opt.step()
                epoch_loss += loss.item()
                weighted += loss.item() * seq.size(0)
            bad = epoch_loss / (len(train_loader) * args.batch_size)  # expect: metric-divided-by-wrong-count
            near = weighted / (len(train_loader) * args.batch_size)
            return bad, near
        """
    check(src, RULE)


def test_phase_tables_of_loaders_and_dataset_sizes():
    src = """
        import torch
        import torch.nn as nn

        def train_model(model, dataloaders, image_datasets, optimizer, num_epochs=25):
            criterion = nn.CrossEntropyLoss()
            dataset_sizes = {x: len(image_datasets[x]) for x in ["train", "val"]}
            for epoch in range(num_epochs):
                for phase in ["train", "val"]:
                    running_loss = 0.0
                    running_corrects = 0
                    weighted = 0.0
                    for inputs, labels in dataloaders[phase]:
                        outputs = model(inputs)
                        loss = criterion(outputs, labels)
                        running_loss += loss.item()
                        weighted += loss.item() * inputs.size(0)
                        running_corrects += torch.sum(outputs.argmax(1) == labels.data)
                    epoch_loss = running_loss / dataset_sizes[phase]  # expect: metric-divided-by-wrong-count
                    also = running_loss / len(dataloaders[phase].dataset)  # expect: metric-divided-by-wrong-count
                    fine = weighted / dataset_sizes[phase]
                    per_batch = running_loss / len(dataloaders[phase])
                    epoch_acc = running_corrects.double() / dataset_sizes[phase]
            return model
        """
    check(src, RULE)
