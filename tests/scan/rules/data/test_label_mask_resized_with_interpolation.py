"""The ``label-mask-resized-with-interpolation`` rule (``mlsleuth/scan/rules/data/label_mask_resized_with_interpolation.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"label-mask-resized-with-interpolation"}


def test_masks_resized_with_the_default_or_a_smooth_filter():
    src = """
    import numpy as np
    from PIL import Image
    import torchvision.transforms.functional as TF

    def load_pair(img_path, mask_path, size):
        image = Image.open(img_path).convert("RGB").resize(size, Image.BICUBIC)
        mask = Image.open(mask_path).convert("L")
        mask = mask.resize(size)  # expect: label-mask-resized-with-interpolation
        return np.asarray(image), np.asarray(mask)

    def preprocess(pil_img, scale, is_mask):
        w, h = pil_img.size
        pil_img = pil_img.resize((int(w * scale), int(h * scale)))  # expect: label-mask-resized-with-interpolation
        return np.asarray(pil_img)

    def augment(image, seg_mask, size):
        return TF.resize(image, size), TF.resize(seg_mask, size)  # expect: label-mask-resized-with-interpolation
    """
    check(src, RULE)


def test_nearest_flag_driven_or_palette_masks_are_fine():
    src = """
    import numpy as np
    from PIL import Image
    import torchvision.transforms.functional as TF
    from torchvision.transforms import InterpolationMode

    def load_pair(img_path, mask_path, size):
        image = Image.open(img_path).convert("RGB").resize(size)
        mask = Image.open(mask_path).convert("L").resize(size, resample=Image.NEAREST)
        return np.asarray(image), np.asarray(mask)

    def preprocess(pil_img, scale, is_mask):
        w, h = pil_img.size
        pil_img = pil_img.resize((int(w * scale), int(h * scale)), resample=Image.NEAREST if is_mask else Image.BICUBIC)
        return np.asarray(pil_img)

    def augment(image, seg_mask, size):
        return TF.resize(image, size), TF.resize(seg_mask, size, interpolation=InterpolationMode.NEAREST)

    def thumbnail(photo, size):
        return photo.resize(size)
    """
    check(src, RULE)


def test_palette_masks_keep_nearest():
    src = """
    from PIL import Image

    def load_mask(path, size):
        mask = Image.open(path)
        assert mask.mode == "P"
        return mask.resize(size)
    """
    check(src, RULE)


def test_a_resample_given_as_its_integer_code():
    src = """
    import numpy as np
    from PIL import Image

    def downsample_labels(seg, size, stride):
        small = seg.resize((size[0] // stride, size[1] // stride), 0)
        return np.asarray(small)

    def blurred_labels(seg, size):
        return np.asarray(seg.resize(size, 2))  # expect: label-mask-resized-with-interpolation
    """
    check(src, RULE)
