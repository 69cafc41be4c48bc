import hydra
import lightning.pytorch as pl
from omegaconf import DictConfig

from world_model.data import LatentDataModule
from world_model.module import WorldModelModule


@hydra.main(config_path="configs", config_name="train", version_base=None)
def main(cfg: DictConfig):
    pl.seed_everything(cfg.seed)
    dm = LatentDataModule(cfg.data.root, batch_size=cfg.data.batch_size, num_workers=cfg.data.num_workers)
    module = WorldModelModule(latent_dim=cfg.model.latent_dim, action_dim=cfg.model.action_dim, lr=cfg.optim.lr,
                              gradient_clip_norm=cfg.optim.gradient_clip_norm)
    trainer = pl.Trainer(max_steps=cfg.trainer.max_steps, accumulate_grad_batches=cfg.trainer.gradient_accumulation,
                         precision=cfg.trainer.precision, log_every_n_steps=50)
    trainer.fit(module, datamodule=dm)


if __name__ == "__main__":
    main()
