class Config(object):
    d_model = 64
    n_heads = 4
    n_layers = 2
    d_ff = 128
    dropout = 0.1
    max_sen_len = 40
    vocab_size = 5000
    output_size = 4
    lr = 3e-4
    batch_size = 32
    max_epochs = 5
