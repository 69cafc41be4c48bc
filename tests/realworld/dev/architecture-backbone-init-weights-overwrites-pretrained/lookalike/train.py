from mmengine.config import Config
from mmengine.runner import Runner
import backbone  # noqa: F401  registers DinoVisionBackbone

if __name__ == "__main__":
    cfg = Config.fromfile("configs/dinov2_upernet_ade20k.py")
    cfg.work_dir = "work_dirs/dinov2_upernet"
    runner = Runner.from_cfg(cfg)
    runner.train()
