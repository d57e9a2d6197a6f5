// Benchmark input of tool/bench/library_build.sh, not part of any build: what opgen generates for
// test_projects/vision (its schemas, registrations and C++ API), written by hand in one file the way
// PyTorch's custom-operator tutorial does it, against PyTorch 1.13 (c10::optional). The kernels are
// the project's own (declared here); the structured operator scale_add gets the three kernels per key
// an author writes without structured kernels; the variants that vision's `autogen:` adds
// (scale_boxes, scale_boxes.out, box_size.out) get the kernels an author writes for them here. What it lacks against the generated code: device
// checks and guards, the _ops structs and redispatch(), out= overloads of the C++ API, the typed
// Python package.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/native/Resize.h>
#include <torch/library.h>

#include <tuple>

namespace vision::native {
at::Tensor nms_cpu(const at::Tensor& boxes, const at::Tensor& scores, double iou_threshold);
at::Tensor nms_meta(const at::Tensor& boxes, const at::Tensor& scores, double iou_threshold);
at::Tensor scale_add_cpu(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha);
at::Tensor& scale_add__cpu(at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha);
at::Tensor& scale_add_out_cpu(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha, at::Tensor& out);
at::Tensor scale_add_meta(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha);
at::Tensor& scale_add__meta(at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha);
at::Tensor& scale_add_out_meta(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha, at::Tensor& out);
at::Tensor box_area(const at::Tensor& boxes);
at::Tensor box_iou(const at::Tensor& boxes1, const at::Tensor& boxes2, bool aligned);
at::Tensor anchor_grid(c10::SymIntArrayRef sizes, double stride, c10::optional<at::ScalarType> dtype,
                       c10::optional<at::Layout> layout, c10::optional<at::Device> device, c10::optional<bool> pin_memory);
std::tuple<at::Tensor, at::Tensor> roi_pool_cpu(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                                                at::IntArrayRef output_size, c10::optional<int64_t> sampling_ratio,
                                                c10::string_view mode);
std::tuple<at::Tensor, at::Tensor> roi_pool_meta(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                                                 at::IntArrayRef output_size, c10::optional<int64_t> sampling_ratio,
                                                 c10::string_view mode);
at::Tensor stack_boxes(at::TensorList boxes, const c10::optional<at::Tensor>& weights);
at::Tensor clip_boxes(const at::Tensor& boxes, at::IntArrayRef size);
at::Tensor box_convert(const at::Tensor& boxes, c10::string_view in_fmt, c10::string_view out_fmt);
at::Tensor& scale_boxes_cpu_(at::Tensor& boxes, double factor);
std::tuple<at::Tensor, at::Tensor> box_size_cpu(const at::Tensor& boxes);

// The variants that the YAML lists under autogen: (opgen generates these).
at::Tensor scale_boxes(const at::Tensor& boxes, double factor) {
  at::Tensor copy = boxes.clone();
  static const auto op =
      c10::Dispatcher::singleton().findSchemaOrThrow("vision::scale_boxes_", "").typed<at::Tensor&(at::Tensor&, double)>();
  op.call(copy, factor);
  return copy;
}
at::Tensor& scale_boxes_out(const at::Tensor& boxes, double factor, at::Tensor& out) {
  const at::Tensor result = scale_boxes(boxes, factor);
  at::native::resize_output(out, result.sizes());
  out.copy_(result);
  return out;
}
std::tuple<at::Tensor&, at::Tensor&> box_size_out(const at::Tensor& boxes, at::Tensor& width, at::Tensor& height) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("vision::box_size", "")
                             .typed<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&)>();
  const auto [w, h] = op.call(boxes);
  at::native::resize_output(width, w.sizes());
  width.copy_(w);
  at::native::resize_output(height, h.sizes());
  height.copy_(h);
  return {width, height};
}
}  // namespace vision::native

// The C++ API: each call goes through the dispatcher, with the operator's handle looked up once.
namespace vision {
namespace {
template <typename Signature>
c10::TypedOperatorHandle<Signature> handle(const char* name, const char* overload = "") {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload).typed<Signature>();
}
}  // namespace

at::Tensor nms(const at::Tensor& boxes, const at::Tensor& scores, double iou_threshold) {
  static const auto op = handle<at::Tensor(const at::Tensor&, const at::Tensor&, double)>("vision::nms");
  return op.call(boxes, scores, iou_threshold);
}
at::Tensor scale_add(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha = 1) {
  static const auto op = handle<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Scalar&)>("vision::scale_add");
  return op.call(self, other, alpha);
}
at::Tensor& scale_add_(at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha = 1) {
  static const auto op = handle<at::Tensor&(at::Tensor&, const at::Tensor&, const at::Scalar&)>("vision::scale_add_");
  return op.call(self, other, alpha);
}
at::Tensor& scale_add_out(at::Tensor& out, const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha = 1) {
  static const auto op =
      handle<at::Tensor&(const at::Tensor&, const at::Tensor&, const at::Scalar&, at::Tensor&)>("vision::scale_add", "out");
  return op.call(self, other, alpha, out);
}
at::Tensor box_area(const at::Tensor& boxes) {
  static const auto op = handle<at::Tensor(const at::Tensor&)>("vision::box_area");
  return op.call(boxes);
}
at::Tensor box_iou(const at::Tensor& boxes1, const at::Tensor& boxes2, bool aligned = false) {
  static const auto op = handle<at::Tensor(const at::Tensor&, const at::Tensor&, bool)>("vision::box_iou");
  return op.call(boxes1, boxes2, aligned);
}
at::Tensor anchor_grid(c10::SymIntArrayRef sizes, double stride, at::TensorOptions options = {}) {
  static const auto op =
      handle<at::Tensor(c10::SymIntArrayRef, double, c10::optional<at::ScalarType>, c10::optional<at::Layout>,
                        c10::optional<at::Device>, c10::optional<bool>)>("vision::anchor_grid");
  return op.call(sizes, stride, c10::optTypeMetaToScalarType(options.dtype_opt()), options.layout_opt(),
                 options.device_opt(), options.pinned_memory_opt());
}
std::tuple<at::Tensor, at::Tensor> roi_pool(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                                            at::IntArrayRef output_size, c10::optional<int64_t> sampling_ratio = c10::nullopt,
                                            c10::string_view mode = "max") {
  static const auto op =
      handle<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, double, at::IntArrayRef,
                                                c10::optional<int64_t>, c10::string_view)>("vision::roi_pool");
  return op.call(input, rois, spatial_scale, output_size, sampling_ratio, mode);
}
at::Tensor stack_boxes(at::TensorList boxes, const c10::optional<at::Tensor>& weights = {}) {
  static const auto op = handle<at::Tensor(at::TensorList, const c10::optional<at::Tensor>&)>("vision::stack_boxes");
  return op.call(boxes, weights);
}
at::Tensor clip_boxes(const at::Tensor& boxes, at::IntArrayRef size) {
  static const auto op = handle<at::Tensor(const at::Tensor&, at::IntArrayRef)>("vision::clip_boxes");
  return op.call(boxes, size);
}
at::Tensor box_convert(const at::Tensor& boxes, c10::string_view in_fmt, c10::string_view out_fmt) {
  static const auto op = handle<at::Tensor(const at::Tensor&, c10::string_view, c10::string_view)>("vision::box_convert");
  return op.call(boxes, in_fmt, out_fmt);
}
at::Tensor& scale_boxes_(at::Tensor& boxes, double factor) {
  static const auto op = handle<at::Tensor&(at::Tensor&, double)>("vision::scale_boxes_");
  return op.call(boxes, factor);
}
at::Tensor scale_boxes(const at::Tensor& boxes, double factor) {
  static const auto op = handle<at::Tensor(const at::Tensor&, double)>("vision::scale_boxes");
  return op.call(boxes, factor);
}
at::Tensor& scale_boxes_out(at::Tensor& out, const at::Tensor& boxes, double factor) {
  static const auto op = handle<at::Tensor&(const at::Tensor&, double, at::Tensor&)>("vision::scale_boxes", "out");
  return op.call(boxes, factor, out);
}
std::tuple<at::Tensor, at::Tensor> box_size(const at::Tensor& boxes) {
  static const auto op = handle<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&)>("vision::box_size");
  return op.call(boxes);
}
std::tuple<at::Tensor&, at::Tensor&> box_size_out(at::Tensor& width, at::Tensor& height, const at::Tensor& boxes) {
  static const auto op =
      handle<std::tuple<at::Tensor&, at::Tensor&>(const at::Tensor&, at::Tensor&, at::Tensor&)>("vision::box_size", "out");
  return op.call(boxes, width, height);
}
}  // namespace vision

TORCH_LIBRARY(vision, m) {
  m.def("nms(Tensor boxes, Tensor scores, float iou_threshold) -> Tensor");
  m.def("scale_add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  m.def("scale_add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  m.def("scale_add_(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  m.def("box_area(Tensor boxes) -> Tensor");
  m.def("box_iou(Tensor boxes1, Tensor boxes2, *, bool aligned=False) -> Tensor");
  m.def("anchor_grid(SymInt[] sizes, float stride, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
        "bool? pin_memory=None) -> Tensor");
  m.def("roi_pool(Tensor input, Tensor rois, float spatial_scale, int[2] output_size, int? sampling_ratio=None, "
        "str mode=\"max\") -> (Tensor output, Tensor argmax)");
  m.def("stack_boxes(Tensor[] boxes, Tensor? weights=None) -> Tensor");
  m.def("clip_boxes(Tensor boxes, int[2] size) -> Tensor");
  m.def("box_convert(Tensor boxes, str in_fmt, str out_fmt) -> Tensor");
  m.def("scale_boxes_(Tensor(a!) self, float factor) -> Tensor(a!)");
  m.def("scale_boxes(Tensor self, float factor) -> Tensor");
  m.def("scale_boxes.out(Tensor self, float factor, *, Tensor(a!) out) -> Tensor(a!)");
  m.def("box_size(Tensor boxes) -> (Tensor width, Tensor height)");
  m.def("box_size.out(Tensor boxes, *, Tensor(a!) out0, Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))");
}

TORCH_LIBRARY_IMPL(vision, CPU, m) {
  m.impl("nms", TORCH_FN(vision::native::nms_cpu));
  m.impl("scale_add", TORCH_FN(vision::native::scale_add_cpu));
  m.impl("scale_add_", TORCH_FN(vision::native::scale_add__cpu));
  m.impl("scale_add.out", TORCH_FN(vision::native::scale_add_out_cpu));
  m.impl("roi_pool", TORCH_FN(vision::native::roi_pool_cpu));
  m.impl("scale_boxes_", TORCH_FN(vision::native::scale_boxes_cpu_));
  m.impl("box_size", TORCH_FN(vision::native::box_size_cpu));
}

TORCH_LIBRARY_IMPL(vision, Meta, m) {
  m.impl("nms", TORCH_FN(vision::native::nms_meta));
  m.impl("scale_add", TORCH_FN(vision::native::scale_add_meta));
  m.impl("scale_add_", TORCH_FN(vision::native::scale_add__meta));
  m.impl("scale_add.out", TORCH_FN(vision::native::scale_add_out_meta));
  m.impl("roi_pool", TORCH_FN(vision::native::roi_pool_meta));
}

TORCH_LIBRARY_IMPL(vision, CompositeExplicitAutograd, m) {
  m.impl("box_iou", TORCH_FN(vision::native::box_iou));
  m.impl("anchor_grid", TORCH_FN(vision::native::anchor_grid));
  m.impl("stack_boxes", TORCH_FN(vision::native::stack_boxes));
  m.impl("clip_boxes", TORCH_FN(vision::native::clip_boxes));
  m.impl("scale_boxes", TORCH_FN(vision::native::scale_boxes));
  m.impl("scale_boxes.out", TORCH_FN(vision::native::scale_boxes_out));
  m.impl("box_size.out", TORCH_FN(vision::native::box_size_out));
}

TORCH_LIBRARY_IMPL(vision, CompositeImplicitAutograd, m) {
  m.impl("box_area", TORCH_FN(vision::native::box_area));
  m.impl("box_convert", TORCH_FN(vision::native::box_convert));
}
