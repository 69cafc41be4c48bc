"""The ``coco-xywh-boxes-to-torchvision-detector`` rule: COCO `[x, y, w, h]` boxes given to a torchvision detector
as if they were `[x1, y1, x2, y2]`."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant
from mlsleuth.scan.registry import Rule, register_rule

# torchvision's detectors, which take `target["boxes"]` as x1, y1, x2, y2.
_TORCHVISION_DETECTOR = re.compile(
    r"fasterrcnn_|maskrcnn_|keypointrcnn_|retinanet_|fcos_|ssd300_|ssdlite320_|\b(FasterRCNN|MaskRCNN|KeypointRCNN|RetinaNet|FCOS)\("
    r"|torchvision\.models\.detection")
# Any sign that the function converts or otherwise reasons about the box corners: left alone (this rule's own
# id in a suppression comment is not such a sign).
_CONVERTS = re.compile(
    r"box_convert|(?<!coco-)xywh|xyxy|cxcy|\[\s*[23]\s*\]\s*\+|\+\s*[\w.]+\[\s*[\"']?\w*[\"']?\s*\]?\s*\[\s*[23]\s*\]|\[\s*:\s*,\s*[23]"
    r"|\[\s*\.\.\.\s*,\s*[23]|\[\s*2\s*:\s*\]|\+=|\bw\b|\bh\b|width|height|x2|y2|xmax|ymax|x_max|y_max|BboxParams",
    re.IGNORECASE)


def _boxes_assignments(ctx: FileContext, func: ast.AST):
    """(node, value) for `target["boxes"] = value` and `{"boxes": value, ...}` in ``func``."""
    for node in ctx.walk_scope(func):
        if isinstance(node, ast.Assign):
            for tgt in node.targets:
                if isinstance(tgt, ast.Subscript) and constant(tgt.slice) == "boxes":
                    yield node, node.value
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if key is not None and constant(key) == "boxes":
                    yield node, value


def _is_bbox_entry(node: ast.AST) -> bool:
    """`ann["bbox"]` (COCO's x, y, width, height), possibly wrapped in `list(...)`/`torch.tensor(...)`."""
    while isinstance(node, ast.Call) and node.args:
        node = node.args[0]
    return isinstance(node, ast.Subscript) and constant(node.slice) == "bbox"


def _raw_coco_boxes(ctx: FileContext, func: ast.AST, value: ast.AST) -> ast.AST | None:
    """The `ann["bbox"]` that ``value`` carries unchanged: directly, through a comprehension's element, or through
    a list it was appended to (followed through local names inside ``func``)."""
    table = vo.bindings(ctx, func)
    appended: dict[str, list[ast.AST]] = {}
    for node in ctx.walk_scope(func):
        if isinstance(node, ast.Call) and call_method(node) == "append" and node.args \
                and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            appended.setdefault(node.func.value.id, []).append(node.args[0])
    stack, seen = [value], set()
    while stack and len(seen) < 40:
        expr = stack.pop()
        if id(expr) in seen:
            continue
        seen.add(id(expr))
        if _is_bbox_entry(expr):
            return expr
        inner = expr
        while isinstance(inner, ast.Call) and inner.args:  # torch.as_tensor(boxes, dtype=...), np.array(...)
            inner = inner.args[0]
        if isinstance(inner, (ast.ListComp, ast.GeneratorExp)):
            stack.append(inner.elt)
        elif isinstance(inner, ast.Name):
            for _line, _stmt, bound in table.get(inner.id, []):
                if bound is not None:
                    stack.append(bound)
            stack.extend(appended.get(inner.id, []))
    return None


def _handed_to_transform(ctx: FileContext, func: ast.AST, node: ast.AST) -> bool:
    """Whether the target holding the boxes goes through a transform (`img, target = self.transforms(img, target)`),
    which may convert them (torchvision's own COCO reference does it there)."""
    holder = None
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript) and isinstance(node.targets[0].value, ast.Name):
        holder = node.targets[0].value.id
    elif isinstance(node, ast.Dict) and isinstance(ctx.parent(node), ast.Assign):
        targets = ctx.parent(node).targets  # type: ignore[union-attr]
        holder = targets[0].id if isinstance(targets[0], ast.Name) else None
    if holder is None:
        return False
    for call in ctx.calls(func):
        name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
        if "transform" in name.lower() and any(
                isinstance(n, ast.Name) and n.id == holder for a in (*call.args, *(k.value for k in call.keywords)) for n in ast.walk(a)):
            return True
    return False


@register_rule
class CocoXywhBoxesToTorchvisionDetector(Rule):
    """COCO boxes (`[x, y, width, height]`) handed to a torchvision detector, which reads `[x1, y1, x2, y2]`.

    What it finds: a dataset function that puts COCO annotations' `ann["bbox"]` into the target's `"boxes"`
    unchanged (`target["boxes"] = torch.as_tensor([a["bbox"] for a in anns])`, a list the boxes were
    appended to, a dict literal `{"boxes": ...}`), in a file or package that trains a torchvision detector
    (`fasterrcnn_*`, `maskrcnn_*`, `retinanet_*`, `FasterRCNN(...)`, ...). Functions that convert
    (`box_convert`, `x + w`, `b[2] + b[0]`, `boxes[:, 2:] += boxes[:, :2]`) or name widths, heights or
    second corners anywhere are left alone.
    Why it matters: COCO stores the top-left corner and the size; torchvision's detection models take two
    corners. Read as corners, every box with `w < x` or `h < y` is degenerate or inverted and the rest are
    the wrong rectangles. Training runs without an error (degenerate boxes only fail on some versions), the
    loss falls, and mAP stays far below what the model should reach.
    How to confirm: draw `target["boxes"]` of a few items on their images, or check
    `(boxes[:, 2] > boxes[:, 0]).all()`; many COCO boxes fail it.
    What to do instead: convert when building the target, `boxes[:, 2:] += boxes[:, :2]` or
    `torchvision.ops.box_convert(boxes, "xywh", "xyxy")`.
    """

    id = "coco-xywh-boxes-to-torchvision-detector"
    category = "data"
    severity = "warning"
    triggers = ("bbox",)
    requires = (("boxes",),)
    reach = "project"

    def check(self, ctx: FileContext):
        detector = None
        for func in ctx.functions:
            if _CONVERTS.search(ctx.segment(func, 1_000_000)):
                continue
            for node, value in _boxes_assignments(ctx, func):
                raw = _raw_coco_boxes(ctx, func, value)
                if raw is None or _handed_to_transform(ctx, func, node):
                    continue
                if detector is None:
                    detector = bool(_TORCHVISION_DETECTOR.search(ctx.source)) or (
                        ctx.project is not None and ctx.project.package_matches(ctx, _TORCHVISION_DETECTOR))
                if not detector:
                    return
                yield self.finding(
                    ctx,
                    node,
                    f"the target's boxes are COCO `{ctx.segment(raw, 40)}` values, `[x, y, width, height]`, but"
                    " torchvision's detectors read `[x1, y1, x2, y2]`: with no conversion the boxes are the wrong"
                    " rectangles (or degenerate)",
                    next_test="check `(target['boxes'][:, 2] > target['boxes'][:, 0]).all()` on a few items, or draw"
                    " the boxes on their images",
                )
