num_train_epochs = 1000
num_warm_epochs = 5
push_start = 10
push_epochs = [i for i in range(num_train_epochs) if i % 10 == 0]

joint_optimizer_lrs = {"features": 1e-4, "add_on_layers": 3e-3, "prototype_vectors": 3e-3}
joint_lr_step_size = 5
last_layer_optimizer_lr = 1e-4

coefs = {"crs_ent": 1, "clst": 0.8, "sep": -0.08, "l1": 1e-4}
