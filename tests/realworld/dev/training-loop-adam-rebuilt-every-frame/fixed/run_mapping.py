import torch

from mapper import Mapper, SDFDecoder, sphere_sdf


def sample_frame(g, n=512):
    pts = torch.rand(n, 3, generator=g) * 2 - 1
    return pts, sphere_sdf(pts)


if __name__ == "__main__":
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    mapper = Mapper(SDFDecoder())
    eval_pts, eval_sdf = sample_frame(torch.Generator().manual_seed(123), n=4096)
    for frame in range(1, 61):
        pts, target = sample_frame(g)
        mapper.optimize(pts, target)
        if frame % 10 == 0:
            with torch.no_grad():
                err = (mapper.decoder(eval_pts) - eval_sdf).abs().mean().item()
            print(f"frame {frame:3d}  eval |sdf error| {err:.4f}")
