from torch.utils.data import DataLoader

from data_provider.data_loader import Dataset_Custom


def data_provider(args, flag):
    if flag == "test":
        shuffle_flag = False
        drop_last = True
        batch_size = 1
    elif flag == "val":
        shuffle_flag = False
        drop_last = False
        batch_size = args.batch_size
    else:
        shuffle_flag = True
        drop_last = True
        batch_size = args.batch_size

    data_set = Dataset_Custom(flag=flag, size=(args.seq_len, args.label_len, args.pred_len))
    print(flag, len(data_set))
    data_loader = DataLoader(
        data_set,
        batch_size=batch_size,
        shuffle=shuffle_flag,
        num_workers=args.num_workers,
        drop_last=drop_last,
    )
    return data_set, data_loader
