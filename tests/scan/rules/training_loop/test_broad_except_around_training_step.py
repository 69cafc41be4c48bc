"""The ``broad-except-around-training-step`` rule (``mlsleuth/scan/rules/training_loop/broad_except_around_training_step.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

EXC = {"broad-except-around-training-step"}


def test_broad_except_that_continues():
    src = """
        def train(model, loader, opt):
            for x in loader:
                try:
                    opt.zero_grad()
                    model(x).sum().backward()
                    opt.step()
                except Exception as e:  # expect: broad-except-around-training-step
                    print(f"skipping batch: {e}")
                    continue
        """
    check(src, EXC)


def test_broad_except_message_names_the_step_it_protects():
    src = """
        import torch

        def train(model, loader, opt, crit):
            for x, y in loader:
                try:
                    x = x.cuda(non_blocking=True)
                    loss = crit(model(x), y)
                    loss.backward()
                    opt.step()
                except Exception:  # expect: broad-except-around-training-step
                    continue

        class Trainer:
            def fit(self):
                for batch in self.loader:
                    try:
                        self.log_batch(batch)
                        self.train_step(batch)
                    except:  # expect: broad-except-around-training-step
                        pass

            def train_step(self, batch):
                loss = self.model(batch).sum()
                loss.backward()
                self.optimizer.step()

            def log_batch(self, batch):
                print(len(batch))

        def main():
            setup_logging()
            train(model, loader, opt, crit)

        if __name__ == "__main__":
            main()
        """
    check(src, EXC)
    first, second = sorted(messages(src, "broad-except-around-training-step"), key=lambda f: f.location.line)
    # the step inside the try, not the first call of the try body nor a caller's call site (main() -> train())
    assert "`loss.backward()` (line 9) and `opt.step()` (line 10)" in first.message
    assert "except Exception` at line 11" in first.message
    assert "cuda" not in first.message and "line 33" not in first.message
    assert "`loss.backward()` (line 25) and `self.optimizer.step()` (line 26)" in second.message
    assert "run by `self.train_step(batch)` at line 19" in second.message and "log_batch" not in second.message


def test_oom_retry_and_reraise_are_fine():
    check(
        """
        import torch

        def a(model, loader, opt):
            for x in loader:
                try:
                    opt.zero_grad()
                    model(x).sum().backward()
                    opt.step()
                except RuntimeError as e:
                    if "out of memory" not in str(e):
                        raise
                    torch.cuda.empty_cache()

        def b(model, loader, opt):
            for x in loader:
                try:
                    opt.zero_grad()
                    model(x).sum().backward()
                    opt.step()
                except torch.cuda.OutOfMemoryError:
                    torch.cuda.empty_cache()
                    continue

        def c(model, loader, opt, log):
            for x in loader:
                try:
                    opt.zero_grad()
                    model(x).sum().backward()
                    opt.step()
                except Exception:
                    log.exception("step failed")
                    raise
        """,
        EXC,
    )
