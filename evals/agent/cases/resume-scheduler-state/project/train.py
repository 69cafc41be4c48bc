from surrogate.config import parse_args
from surrogate.trainer import Trainer


def main(argv=None):
    cfg = parse_args(argv)
    return Trainer(cfg).fit()


if __name__ == "__main__":
    main()
