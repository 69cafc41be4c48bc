"""The ``reduced-mean-not-averaged`` rule (``mlsleuth/scan/rules/distributed/reduced_mean_not_averaged.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"reduced-mean-not-averaged"}


def test_loss_all_reduced_and_logged_without_division():
    src = """
        import torch.distributed as dist

        def log_step(loss, writer, step):
            val_loss = loss.detach().clone()
            dist.all_reduce(val_loss)  # expect: reduced-mean-not-averaged
            writer.add_scalar("loss", val_loss.item(), step)

        def batch_accuracy(logits, y):
            acc = (logits.argmax(1) == y).float().mean()
            dist.all_reduce(acc, op=dist.ReduceOp.SUM)  # expect: reduced-mean-not-averaged
            return acc.item()
        """
    check(src, RULE)


def test_reduce_helper_fed_losses_from_another_module(tmp_path):
    check_project(
        tmp_path,
        {
            "dist_utils.py": """
                import torch
                import torch.distributed as dist

                def gather_value(t):
                    out = t.clone()
                    dist.reduce(out, dst=0)  # expect: reduced-mean-not-averaged
                    return out
                """,
            "train.py": """
                from dist_utils import gather_value

                def step(model, batch, opt, meter):
                    loss = model(batch)
                    loss.backward()
                    opt.step()
                    meter.update(gather_value(loss).item())
                """,
        },
        RULE,
    )


def test_averaged_sums_and_avg_op_stay_silent():
    src = """
        import torch
        import torch.distributed as dist

        def averaged(loss):
            loss = loss.clone()
            dist.all_reduce(loss)
            loss /= dist.get_world_size()
            return loss

        def avg_op(loss):
            dist.all_reduce(loss, op=dist.ReduceOp.AVG)
            return loss

        def counts(logits, y):
            correct = (logits.argmax(1) == y).sum()
            total = torch.tensor(len(y))
            dist.all_reduce(correct)
            dist.all_reduce(total)
            return correct / total

        def helper(t):
            out = t.clone()
            dist.all_reduce(out)
            return out

        def caller(loss, world):
            return helper(loss) / world

        def summed_loss(batch_losses):
            loss_sum = torch.stack(batch_losses).sum()
            dist.all_reduce(loss_sum)
            return loss_sum
        """
    check(src, RULE)
