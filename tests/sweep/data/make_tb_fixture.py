"""Generate the TensorBoard fixture with the real writers (torch SummaryWriter + tensorboard protos)."""
import shutil
import sys
from pathlib import Path

from tensorboard.compat.proto import (
    event_pb2,
    summary_pb2,
    tensor_pb2,
    tensor_shape_pb2,
    types_pb2,
)
from tensorboard.summary.writer.event_file_writer import EventFileWriter
from torch.utils.tensorboard import SummaryWriter

root = Path(sys.argv[1]); shutil.rmtree(root, ignore_errors=True)
# torch runs: lr in {0.001, 0.01}, seeds 0..2; lr=0.01 is better by 0.05 on every seed
base = {0: 0.70, 1: 0.60, 2: 0.80}
for lr, bonus in ((0.001, 0.0), (0.01, 0.05)):
    for seed in range(3):
        w = SummaryWriter(log_dir=str(root / f"lr={lr}" / f"seed={seed}"), flush_secs=1)
        for step in range(5):
            w.add_scalar("val/acc", base[seed] + bonus - 0.1 * (4 - step), step)
            w.add_scalar("train/loss", 1.0 / (step + 1), step)
        w.close()
# one diverged run, written by torch: loss and acc NaN from step 3
w = SummaryWriter(log_dir=str(root / "lr=0.1" / "seed=0"))
for step in range(5):
    w.add_scalar("val/acc", float("nan") if step >= 3 else 0.5, step)
w.close()
# TF2-style tensor summaries (float_val and tensor_content) for lr=0.1 seeds 1, 2
for seed, how in ((1, "float_val"), (2, "content")):
    d = root / "lr=0.1" / f"seed={seed}"
    d.mkdir(parents=True)
    wr = EventFileWriter(str(d))
    for step in range(5):
        val = 0.55 + 0.01 * step
        t = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, tensor_shape=tensor_shape_pb2.TensorShapeProto())
        if how == "float_val":
            t.float_val.append(val)
        else:
            import struct
            t.tensor_content = struct.pack("<f", val)
        md = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars"))
        s = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="val/acc", tensor=t, metadata=md)])
        wr.add_event(event_pb2.Event(step=step, wall_time=1.0e9 + step, summary=s))
    wr.close()
print(sorted(str(p.relative_to(root)) for p in root.rglob("*tfevents*")))
