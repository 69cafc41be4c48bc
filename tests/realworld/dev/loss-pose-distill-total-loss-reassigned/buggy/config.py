CFG = {
    "num_joints": 16,
    "input_res": 256,
    "heatmap_res": 64,
    "batch_size": 24,
    "unlabeled_batch_size": 24,
    "epochs": 100,
    "lr": 2.5e-4,
    "kd_alpha": 0.5,
    "unkd_alpha": 0.5,
    "teacher_ckpt": "checkpoints/hg8_teacher.pth",
    "print_freq": 50,
}
