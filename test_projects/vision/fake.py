"""The Python fake kernels of the vision operators whose entry in ops.yaml says `fake: python`
(add_operator_library(... PYTHON_FAKES fake.py)): the generated package imports this file as
vision.fake once the library is loaded."""
import torch


@torch.library.register_fake("vision::nms")
def nms_fake(boxes, scores, iou_threshold):
    torch._check(boxes.dim() == 2 and boxes.size(1) == 4, lambda: "vision::nms: boxes must have shape [N, 4]")
    torch._check(scores.dim() == 1 and scores.size(0) == boxes.size(0), lambda: "vision::nms: scores must have shape [N]")
    # How many boxes are kept depends on the data: a new symbolic size, at most the number of boxes.
    kept = torch.library.get_ctx().new_dynamic_size()
    return boxes.new_empty((kept,), dtype=torch.long)
