"""Train on the cluster, evaluate later on the analysis server from the same cached shards."""
import argparse

import lightning as L

from cached_dataset import CachedSimulatedDataModule
from encoder import CountEncoder
from simulate import cache_dataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["generate", "train", "evaluate"])
    parser.add_argument("--cached-data-path", default="cached_data")
    parser.add_argument("--ckpt", default="encoder.ckpt")
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()

    L.seed_everything(42)
    if args.mode == "generate":
        cache_dataset(args.cached_data_path)
        return
    datamodule = CachedSimulatedDataModule(args.cached_data_path)
    trainer = L.Trainer(max_epochs=args.epochs, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, accelerator="cpu")
    if args.mode == "train":
        model = CountEncoder()
        trainer.fit(model, datamodule=datamodule)
        trainer.save_checkpoint(args.ckpt)
    else:
        model = CountEncoder.load_from_checkpoint(args.ckpt)
        print(trainer.test(model, datamodule=datamodule, verbose=False))


if __name__ == "__main__":
    main()
