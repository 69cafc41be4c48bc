"""The ``encoder-state-carried-across-batches`` rule (``mlsleuth/scan/rules/training_loop/encoder_state_carried_across_batches.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"encoder-state-carried-across-batches"}


def test_summariser_state_created_before_the_epochs_and_handed_to_the_decoder():
    src = """
    import torch

    def train(cfg, encoder, decoder, batches, criterion):
        enc_opt = torch.optim.Adam(encoder.parameters())
        dec_opt = torch.optim.Adam(decoder.parameters())
        encoder_hidden = encoder.init_hidden(cfg.batch_size)
        for epoch in range(cfg.epochs):
            for article, summary in batches:
                enc_opt.zero_grad()
                dec_opt.zero_grad()
                encoder_outputs, encoder_hidden = encoder(article, encoder_hidden.detach())  # expect: encoder-state-carried-across-batches
                decoder_hidden = encoder_hidden
                decoder_input = summary[:, :1]
                loss = 0.0
                for t in range(1, summary.size(1)):
                    out, decoder_hidden, _ = decoder(decoder_input, decoder_hidden, encoder_outputs)
                    loss = loss + criterion(out, summary[:, t])
                    decoder_input = summary[:, t:t + 1]
                loss.backward()
                enc_opt.step()
                dec_opt.step()
    """
    check(src, RULE)


def test_state_starting_as_none_in_a_method_passed_straight_to_the_decoder():
    src = """
    import torch

    class Seq2SeqTrainer:
        def fit(self, loader):
            state = None
            for src, tgt in loader:
                self.opt.zero_grad()
                memory, state = self.encoder(src, state)  # expect: encoder-state-carried-across-batches
                logits = self.decoder(tgt[:, :-1], state, memory)
                loss = self.criterion(logits.transpose(1, 2), tgt[:, 1:])
                loss.backward()
                self.opt.step()
    """
    check(src, RULE)


def test_lstm_pair_of_zero_tensors_carried_with_a_detach_helper():
    src = """
    import torch

    def run(enc, dec, loader, opt, bs, hid):
        hc = (torch.zeros(1, bs, hid), torch.zeros(1, bs, hid))
        for x, y in loader:
            out, hc = enc(x, tuple(h.detach() for h in hc))  # expect: encoder-state-carried-across-batches
            pred = dec(y, hc)
            loss = torch.nn.functional.mse_loss(pred, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    """
    check(src, RULE)


def test_gru_state_sliced_to_the_decoder_layers():
    src = """
    import torch

    def train_iters(encoder, decoder, pairs, enc_opt, dec_opt, n_layers):
        encoder_hidden = torch.zeros(2 * n_layers, 64, 256)
        for input_variable, lengths, target_variable in pairs:
            enc_opt.zero_grad()
            dec_opt.zero_grad()
            encoder_outputs, encoder_hidden = encoder(input_variable, lengths, encoder_hidden.detach())  # expect: encoder-state-carried-across-batches
            decoder_hidden = encoder_hidden[:n_layers]
            decoder_output, decoder_hidden = decoder(target_variable[0], decoder_hidden, encoder_outputs)
            loss = torch.nn.functional.nll_loss(decoder_output, target_variable[1])
            loss.backward()
            enc_opt.step()
            dec_opt.step()
    """
    check(src, RULE)


def test_language_model_carrying_its_own_state_through_one_text_is_fine():
    src = """
    import torch

    def repackage_hidden(h):
        return h.detach() if isinstance(h, torch.Tensor) else tuple(repackage_hidden(v) for v in h)

    def train_epoch(model, train_data, criterion, opt, bptt, bs):
        hidden = model.init_hidden(bs)
        for i in range(0, train_data.size(0) - 1, bptt):
            data, targets = train_data[i:i + bptt], train_data[i + 1:i + 1 + bptt]
            hidden = repackage_hidden(hidden)
            opt.zero_grad()
            output, hidden = model(data, hidden)
            loss = criterion(output.view(-1, output.size(-1)), targets.reshape(-1))
            loss.backward()
            opt.step()

    def train_epoch_inline(model, batches, criterion, opt, bs):
        hidden = model.init_hidden(bs)
        for data, targets in batches:
            opt.zero_grad()
            output, hidden = model(data, hidden.detach())
            loss = criterion(output.view(-1, output.size(-1)), targets.reshape(-1))
            loss.backward()
            opt.step()
            print(len(hidden))
    """
    check(src, RULE)


def test_state_created_for_every_batch_is_fine():
    src = """
    import torch

    def train(cfg, encoder, decoder, batches, criterion, opt):
        for epoch in range(cfg.epochs):
            for article, summary in batches:
                encoder_hidden = encoder.init_hidden(cfg.batch_size)
                encoder_outputs, encoder_hidden = encoder(article, encoder_hidden.detach())
                out, _, _ = decoder(summary[:, :1], encoder_hidden, encoder_outputs)
                loss = criterion(out, summary[:, 1])
                opt.zero_grad()
                loss.backward()
                opt.step()
    """
    check(src, RULE)
