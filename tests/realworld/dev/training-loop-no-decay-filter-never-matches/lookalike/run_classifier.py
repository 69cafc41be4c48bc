import argparse

import torch
from torch.utils.data import DataLoader, RandomSampler
from tqdm import tqdm, trange

from modeling import BertForSequenceClassification
from optimization import BERTAdam
from processors import MrpcProcessor, convert_examples_to_features, features_to_dataset
from tokenization import FullTokenizer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", required=True)
    parser.add_argument("--bert_model", default="bert-base-uncased")
    parser.add_argument("--train_batch_size", type=int, default=32)
    parser.add_argument("--learning_rate", type=float, default=5e-5)
    parser.add_argument("--num_train_epochs", type=float, default=3.0)
    parser.add_argument("--warmup_proportion", type=float, default=0.1)
    args = parser.parse_args()

    processor = MrpcProcessor()
    tokenizer = FullTokenizer(args.bert_model)
    train_examples = processor.get_train_examples(args.data_dir)
    num_train_steps = int(len(train_examples) / args.train_batch_size * args.num_train_epochs)
    model = BertForSequenceClassification.from_pretrained(args.bert_model, num_labels=2)

    no_decay = {n for n, p in model.named_parameters() if p.ndim < 2}
    optimizer_parameters = [
        {"params": [p for n, p in model.named_parameters() if n not in no_decay], "weight_decay_rate": 0.01},
        {"params": [p for n, p in model.named_parameters() if n in no_decay], "weight_decay_rate": 0.0},
    ]
    optimizer = BERTAdam(optimizer_parameters, lr=args.learning_rate, warmup=args.warmup_proportion,
                         t_total=num_train_steps)

    features = convert_examples_to_features(train_examples, processor.get_labels(), 128, tokenizer)
    loader = DataLoader(features_to_dataset(features), sampler=RandomSampler(features), batch_size=args.train_batch_size)
    model.train()
    for _ in trange(int(args.num_train_epochs), desc="Epoch"):
        for input_ids, input_mask, segment_ids, label_ids in tqdm(loader, desc="Iteration"):
            loss, _ = model(input_ids, segment_ids, input_mask, label_ids)
            loss.backward()
            optimizer.step()
            model.zero_grad()


if __name__ == "__main__":
    main()
