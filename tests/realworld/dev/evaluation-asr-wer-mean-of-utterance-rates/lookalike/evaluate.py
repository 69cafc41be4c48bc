import torch

from decoder import GreedyDecoder


@torch.no_grad()
def evaluate(model, loader, decoder=None, show_worst=3):
    decoder = decoder or GreedyDecoder()
    model.eval()
    word_err, char_err, n_words, n_chars = 0, 0, 0, 0
    per_utt = []
    for feats, lengths, _, _, texts in loader:
        logits = model(feats)
        hyps = decoder.decode(logits, lengths)
        for hyp, ref in zip(hyps, texts):
            errs = decoder.word_errors(hyp, ref)
            word_err += errs
            char_err += decoder.char_errors(hyp, ref)
            n_words += len(ref.split())
            n_chars += len(ref.replace(" ", ""))
            # per-utterance rate only ranks utterances for error analysis
            per_utt.append((errs / len(ref.split()), ref, hyp))
    per_utt.sort(key=lambda r: r[0], reverse=True)
    for rate, ref, hyp in per_utt[:show_worst]:
        print(f"    worst {100.0 * rate:5.1f}%  ref={ref!r}  hyp={hyp!r}")
    wer = 100.0 * word_err / n_words
    cer = 100.0 * char_err / n_chars
    model.train()
    return wer, cer
