"""The ``retain-graph-in-loop`` rule (``mlsleuth/scan/rules/training_loop/retain_graph_in_loop.py``)."""

from __future__ import annotations

from scan.helpers import check, messages


def test_retain_graph_single_backward_per_step():
    src = """
        import torch

        def tbptt(rnn, head, chunks, opt):
            hidden = None
            for x, y in chunks:
                opt.zero_grad()
                out, hidden = rnn(x, hidden)
                loss = torch.nn.functional.mse_loss(head(out), y)
                loss.backward(retain_graph=True)  # expect: retain-graph-in-loop
                opt.step()
        """
    check(src, {"retain-graph-in-loop"})
    (f,) = messages(src, "retain-graph-in-loop")
    assert f.severity == "info" and ".detach()" in f.message


def test_retain_graph_needed_for_second_backward_is_fine():
    check(
        """
        def two_losses(model, loader, opt):
            for x in loader:
                opt.zero_grad()
                feats = model.encoder(x)
                rec = model.decoder(feats).pow(2).mean()
                reg = feats.abs().mean()
                rec.backward(retain_graph=True)
                reg.backward()
                opt.step()
        """,
        {"retain-graph-in-loop"},
    )
