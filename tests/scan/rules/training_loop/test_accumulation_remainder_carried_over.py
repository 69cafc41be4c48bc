"""The ``accumulation-remainder-carried-over`` rule (``mlsleuth/scan/rules/training_loop/accumulation_remainder_carried_over.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = "accumulation-remainder-carried-over"


def test_step_keyed_on_the_epoch_batch_index_without_a_flush_flags():
    src = """
    import torch

    def train(model, loader, epochs, accum_steps):
        opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
        model.zero_grad()
        for epoch in range(epochs):
            for step, batch in enumerate(loader):
                loss = model(**batch).loss / accum_steps
                loss.backward()
                if (step + 1) % accum_steps == 0:  # expect: accumulation-remainder-carried-over
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    opt.step()
                    opt.zero_grad()
    """
    check(src, {RULE})


def test_flushes_trims_and_epoch_start_clears_are_fine():
    src = """
    import torch

    def flush_in_the_test(model, loader, epochs, accum):
        opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
        for epoch in range(epochs):
            for i, batch in enumerate(loader):
                (model(**batch).loss / accum).backward()
                if (i + 1) % accum == 0 or i + 1 == len(loader):
                    opt.step()
                    opt.zero_grad()

    def flush_after_the_loop(model, loader, epochs, accum):
        opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
        for epoch in range(epochs):
            for i, batch in enumerate(loader):
                (model(**batch).loss / accum).backward()
                if (i + 1) % accum == 0:
                    opt.step()
                    opt.zero_grad()
            opt.step()
            opt.zero_grad()

    def clear_each_epoch(model, loader, epochs, accum):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(epochs):
            opt.zero_grad()
            for i, batch in enumerate(loader):
                (model(**batch).loss / accum).backward()
                if (i + 1) % accum == 0:
                    opt.step()
                    opt.zero_grad()

    def trimmed(model, loader, epochs, accum):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        usable = len(loader) - len(loader) % accum
        for epoch in range(epochs):
            for i, batch in enumerate(loader):
                if i >= usable:
                    break
                (model(**batch).loss / accum).backward()
                if (i + 1) % accum == 0:
                    opt.step()
                    opt.zero_grad()

    def global_counter(model, loader, epochs, accum):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        it = 0
        for epoch in range(epochs):
            for batch in loader:
                (model(**batch).loss / accum).backward()
                it += 1
                if it % accum == 0:
                    opt.step()
                    opt.zero_grad()

    def logging_only(model, loader, epochs):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(epochs):
            for i, batch in enumerate(loader):
                opt.zero_grad()
                loss = model(**batch).loss
                loss.backward()
                opt.step()
                if (i + 1) % 100 == 0:
                    print(loss.item())
    """
    check(src, {RULE})
