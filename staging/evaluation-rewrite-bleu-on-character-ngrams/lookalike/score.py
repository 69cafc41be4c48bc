import argparse

from sacrebleu.metrics import BLEU

from data_utils import read_lines

def bleu_n(references, hypotheses):
    scores = {}
    for n in (1, 2, 3, 4):
        metric = BLEU(max_ngram_order=n, tokenize="13a", effective_order=True)
        scores[n] = metric.corpus_score(hypotheses, [references]).score / 100.0
    return scores


def exact_match(references, hypotheses):
    return sum(r == h for r, h in zip(references, hypotheses)) / max(len(references), 1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ref", default="outputs/test.ref")
    p.add_argument("--hyp", default="outputs/test.hyp")
    args = p.parse_args()
    refs, hyps = read_lines(args.ref), read_lines(args.hyp)
    assert len(refs) == len(hyps), (len(refs), len(hyps))
    scores = bleu_n(refs, hyps)
    print("Avg. BLEU(n): " + "\t".join(f"{scores[n]:.3f} ({n})" for n in sorted(scores)))
    print(f"Exact match: {exact_match(refs, hyps):.3f}")


if __name__ == "__main__":
    main()
