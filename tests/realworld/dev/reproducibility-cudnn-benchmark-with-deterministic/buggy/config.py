from data import make_loader

configurations = {
    1: dict(
        SEED=1337,
        DIST_URL="tcp://127.0.0.1:23456",
        WORLD_SIZE=1,
        EMBEDDING_SIZE=512,
        NUM_CLASS=85742,
        LR=0.1,
        NUM_EPOCH=50,
        LOADER_FN=make_loader,
    ),
}
