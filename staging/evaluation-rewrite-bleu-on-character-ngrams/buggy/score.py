import argparse

from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu

from data_utils import read_lines

BLEU_WEIGHTS = {
    1: (1.0, 0.0, 0.0, 0.0),
    2: (0.5, 0.5, 0.0, 0.0),
    3: (1 / 3, 1 / 3, 1 / 3, 0.0),
    4: (0.25, 0.25, 0.25, 0.25),
}


def bleu_n(references, hypotheses):
    smooth = SmoothingFunction().method1
    list_of_refs = [[ref] for ref in references]
    return {
        n: corpus_bleu(list_of_refs, hypotheses, weights=w, smoothing_function=smooth)
        for n, w in BLEU_WEIGHTS.items()
    }


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
