import torch

from decoder import GreedyDecoder


@torch.no_grad()
def evaluate(model, loader, decoder=None):
    decoder = decoder or GreedyDecoder()
    model.eval()
    total_wer, total_cer, n_utts = 0.0, 0.0, 0
    for feats, lengths, _, _, texts in loader:
        logits = model(feats)
        hyps = decoder.decode(logits, lengths)
        for hyp, ref in zip(hyps, texts):
            wer_inst = decoder.word_errors(hyp, ref) / len(ref.split())
            cer_inst = decoder.char_errors(hyp, ref) / len(ref.replace(" ", ""))
            total_wer += wer_inst
            total_cer += cer_inst
            n_utts += 1
    wer = 100.0 * total_wer / n_utts
    cer = 100.0 * total_cer / n_utts
    model.train()
    return wer, cer
