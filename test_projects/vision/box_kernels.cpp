// The kernels of vision::clip_boxes and vision::box_convert, in a source of their own that includes
// only their declarations: adding or changing another operator does not recompile it.
#include <vision/ops/box_convert_native.h>
#include <vision/ops/clip_boxes_native.h>

#include <ATen/ATen.h>

namespace vision::native {

namespace {
void checkBoxes(const at::Tensor& boxes, const char* op) {
  TORCH_CHECK(boxes.dim() == 2 && boxes.size(1) == 4, op, ": boxes must have shape [N, 4], got ", boxes.sizes());
}
}  // namespace

at::Tensor clip_boxes(const at::Tensor& boxes, at::IntArrayRef size) {
  checkBoxes(boxes, "vision::clip_boxes");
  const double height = static_cast<double>(size[0]), width = static_cast<double>(size[1]);
  return at::stack({boxes.select(1, 0).clamp(0, width), boxes.select(1, 1).clamp(0, height),
                    boxes.select(1, 2).clamp(0, width), boxes.select(1, 3).clamp(0, height)},
                   1);
}

at::Tensor box_convert(const at::Tensor& boxes, c10::string_view in_fmt, c10::string_view out_fmt) {
  checkBoxes(boxes, "vision::box_convert");
  auto known = [](c10::string_view f) { return f == "xyxy" || f == "xywh"; };
  TORCH_CHECK(known(in_fmt) && known(out_fmt), "vision::box_convert: formats are 'xyxy' and 'xywh'");
  if (in_fmt == out_fmt) return boxes.clone();
  const at::Tensor xy = boxes.narrow(1, 0, 2);
  const at::Tensor rest = boxes.narrow(1, 2, 2);
  return in_fmt == "xyxy" ? at::cat({xy, rest - xy}, 1) : at::cat({xy, xy + rest}, 1);
}

}  // namespace vision::native
