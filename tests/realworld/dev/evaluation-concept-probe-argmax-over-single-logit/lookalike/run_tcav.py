import torch

from activations import TinyConvNet, layer_activations, make_concept_images, make_random_images
from probe import fit_probe, probe_accuracy


def split(x, y, test_fraction, generator):
    order = torch.randperm(len(y), generator=generator)
    n_test = int(len(y) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return x[train], y[train], x[test], y[test]


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    model = TinyConvNet()
    concept = make_concept_images(160, gen)
    random_set = make_random_images(240, gen)

    for layer_name in ("features.1", "features.4"):
        layer = dict(model.named_modules())[layer_name]
        acts = torch.cat([layer_activations(model, layer, concept), layer_activations(model, layer, random_set)])
        labels = torch.cat([torch.ones(len(concept), dtype=torch.long), torch.zeros(len(random_set), dtype=torch.long)])
        x_tr, y_tr, x_te, y_te = split(acts, labels, 0.33, gen)
        probe = fit_probe(x_tr, y_tr)
        acc = probe_accuracy(probe, x_te, y_te)
        print(f"layer {layer_name}: CAV dim {probe.cav.numel()}, probe accuracy {acc:.3f}")


if __name__ == "__main__":
    main()
