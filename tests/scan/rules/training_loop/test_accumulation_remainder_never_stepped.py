"""The ``accumulation-remainder-never-stepped`` rule (``mlsleuth/scan/rules/training_loop/accumulation_remainder_never_stepped.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = "accumulation-remainder-never-stepped"


def test_enumerate_index_window_in_an_epoch_loop():
    src = """
    import torch

    def train(args, model, optimizer, scheduler, train_dataloader):
        model.zero_grad()
        for _ in range(args.num_train_epochs):
            for step, batch in enumerate(tqdm(train_dataloader)):
                loss = model(**batch).loss / args.gradient_accumulation_steps
                loss.backward()
                if (step + 1) % args.gradient_accumulation_steps == 0:  # expect: accumulation-remainder-never-stepped
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    optimizer.step()
                    scheduler.step()
                    model.zero_grad()
    """
    check(src, {RULE})


def test_per_epoch_function_flag_name_and_grad_scaler():
    src = """
    def train_one_epoch(model, loader, optimizer, scaler, cfg):
        for i, (x, y) in enumerate(loader):
            with torch.autocast("cuda"):
                loss = criterion(model(x), y) / cfg.accum
            scaler.scale(loss).backward()
            do_update = (i + 1) % cfg.accum == 0
            if do_update:  # expect: accumulation-remainder-never-stepped
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad(set_to_none=True)

    def fit(model, loader, opt, epochs, accum):
        for epoch in range(epochs):
            seen = 0
            for batch in loader:
                (model(batch) / accum).backward()
                seen += 1
                if not seen % accum:  # expect: accumulation-remainder-never-stepped
                    opt.step()
                    opt.zero_grad()
    """
    check(src, {RULE})


def test_flushed_windows_and_truncated_epochs_are_fine():
    src = """
    def last_batch_clause(model, loader, optimizer, accum, epochs):
        for epoch in range(epochs):
            for step, batch in enumerate(loader):
                (model(batch) / accum).backward()
                if (step + 1) % accum == 0 or step + 1 == len(loader):
                    optimizer.step()
                    optimizer.zero_grad()

    def flushed_after(model, loader, optimizer, accum, epochs):
        for epoch in range(epochs):
            for step, batch in enumerate(loader):
                (model(batch) / accum).backward()
                if (step + 1) % accum == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            optimizer.step()
            optimizer.zero_grad()

    def cut_to_whole_windows(model, loader, optimizer, accum, epochs):
        usable = len(loader) - len(loader) % accum
        for epoch in range(epochs):
            for step, batch in enumerate(loader):
                if step >= usable:
                    break
                (model(batch) / accum).backward()
                if (step + 1) % accum == 0:
                    optimizer.step()
                    optimizer.zero_grad()

    def global_counter_spans_epochs(model, loader, optimizer, accum, epochs):
        global_step = 0
        for epoch in range(epochs):
            for batch in loader:
                (model(batch) / accum).backward()
                global_step += 1
                if global_step % accum == 0:
                    optimizer.step()
                    optimizer.zero_grad()

    def micro_steps(model, batches, optimizer, accum, iters):
        for it in range(iters):
            for micro in range(accum):
                (model(next(batches)) / accum).backward()
            optimizer.step()
            optimizer.zero_grad()

    def logging_every_n(model, loader, optimizer, log_every):
        for step, batch in enumerate(loader):
            loss = model(batch)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            if step % log_every == 0:
                print(step, loss.item())

    def endless_stream(model, stream, optimizer, accum):
        for step, batch in enumerate(itertools.cycle(stream)):
            (model(batch) / accum).backward()
            if (step + 1) % accum == 0:
                optimizer.step()
                optimizer.zero_grad()
    """
    check(src, {RULE})
