import torch

from decoder import GreedyDecoder


@torch.no_grad()
def evaluate(model, loader, decoder=None):
    decoder = decoder or GreedyDecoder()
    model.eval()
    total_wer, total_cer, num_tokens, num_chars = 0, 0, 0, 0
    for feats, lengths, _, _, texts in loader:
        logits = model(feats)
        hyps = decoder.decode(logits, lengths)
        for hyp, ref in zip(hyps, texts):
            wer_inst = decoder.word_errors(hyp, ref)
            cer_inst = decoder.char_errors(hyp, ref)
            total_wer += wer_inst
            total_cer += cer_inst
            num_tokens += len(ref.split())
            num_chars += len(ref.replace(" ", ""))
    wer = 100.0 * total_wer / num_tokens
    cer = 100.0 * total_cer / num_chars
    model.train()
    return wer, cer
