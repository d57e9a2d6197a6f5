// The kernels of most vision operators (ops.yaml; box_kernels.cpp has the others). Their declarations
// come from the generated per-operator headers <vision/ops/OP_native.h> (PER_OPERATOR_HEADERS): this
// file is not recompiled when an operator it does not implement changes. (<vision/NativeFunctions.h>
// declares every kernel.) The registration with PyTorch's dispatcher is generated too.
#include <vision/ops/anchor_grid_native.h>
#include <vision/ops/box_area_native.h>
#include <vision/ops/box_iou_native.h>
#include <vision/ops/box_size_native.h>
#include <vision/ops/nms_native.h>
#include <vision/ops/roi_pool_native.h>
#include <vision/ops/scale_add_native.h>
#include <vision/ops/scale_boxes_native.h>
#include <vision/ops/stack_boxes_native.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

namespace vision::meta {

// One meta function checks the arguments and shapes the output of scale_add, scale_add_ and scale_add.out.
TORCH_META_FUNC(scale_add)(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  TORCH_CHECK(self.sizes() == other.sizes(), "vision::scale_add: self and other must have the same shape, got ",
              self.sizes(), " and ", other.sizes());
  (void)alpha;
  set_output_raw_strided(0, self.sizes(), {}, self.options());
}

}  // namespace vision::meta

namespace vision::native {

// ...and one impl function computes all three.
TORCH_IMPL_FUNC(scale_add_out)(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha,
                               const at::Tensor& out) {
  out.copy_(self + other * alpha);
}

namespace {
void checkBoxes(const at::Tensor& boxes, const char* op) {
  // (sym_size: the meta kernels run on fake tensors, whose sizes may be symbolic)
  TORCH_CHECK(boxes.dim() == 2 && boxes.sym_size(1) == 4, op, ": boxes must have shape [N, 4]");
}
}  // namespace

at::Tensor nms_cpu(const at::Tensor& boxes, const at::Tensor& scores, double iou_threshold) {
  checkBoxes(boxes, "vision::nms");
  TORCH_CHECK(scores.dim() == 1 && scores.size(0) == boxes.size(0), "vision::nms: scores must have shape [N]");
  const at::Tensor order = std::get<1>(scores.sort(/*dim=*/0, /*descending=*/true));
  const at::Tensor iou = box_iou(boxes, boxes, /*aligned=*/false);
  const auto orderA = order.accessor<int64_t, 1>();
  const at::Tensor iouD = iou.to(at::kDouble);
  const auto iouA = iouD.accessor<double, 2>();
  std::vector<int64_t> keep;
  std::vector<bool> removed(boxes.size(0), false);
  for (int64_t i = 0; i < order.size(0); ++i) {
    const int64_t b = orderA[i];
    if (removed[b]) continue;
    keep.push_back(b);
    for (int64_t j = i + 1; j < order.size(0); ++j)
      if (iouA[b][orderA[j]] > iou_threshold) removed[orderA[j]] = true;
  }
  return at::tensor(keep, at::kLong);
}

at::Tensor box_area(const at::Tensor& boxes) {
  checkBoxes(boxes, "vision::box_area");
  return (boxes.select(1, 2) - boxes.select(1, 0)) * (boxes.select(1, 3) - boxes.select(1, 1));
}

at::Tensor box_iou(const at::Tensor& boxes1, const at::Tensor& boxes2, bool aligned) {
  checkBoxes(boxes1, "vision::box_iou");
  checkBoxes(boxes2, "vision::box_iou");
  at::Tensor a = boxes1, b = boxes2;
  if (!aligned) {
    a = boxes1.unsqueeze(1);  // [N, 1, 4] against [1, M, 4]
    b = boxes2.unsqueeze(0);
  } else {
    TORCH_CHECK(boxes1.size(0) == boxes2.size(0), "vision::box_iou: aligned boxes need the same count");
  }
  auto part = [](const at::Tensor& t, int64_t i) { return t.select(-1, i); };
  const at::Tensor w = (at::min(part(a, 2), part(b, 2)) - at::max(part(a, 0), part(b, 0))).clamp_min(0);
  const at::Tensor h = (at::min(part(a, 3), part(b, 3)) - at::max(part(a, 1), part(b, 1))).clamp_min(0);
  const at::Tensor inter = w * h;
  const at::Tensor areaA = (part(a, 2) - part(a, 0)) * (part(a, 3) - part(a, 1));
  const at::Tensor areaB = (part(b, 2) - part(b, 0)) * (part(b, 3) - part(b, 1));
  return inter / (areaA + areaB - inter);
}

// A SymInt[] argument reaches the kernel as c10::SymIntArrayRef: under torch.compile(dynamic=True) its
// values may be symbolic, and the kernel keeps them so (empty_symint, not int64_t sizes).
at::Tensor anchor_grid(c10::SymIntArrayRef sizes, double stride, c10::optional<at::ScalarType> dtype,
                       c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                       c10::optional<bool> pin_memory) {
  TORCH_CHECK(sizes.size() == 2, "vision::anchor_grid: sizes must be [height, width], got ", sizes);
  const auto options = at::TensorOptions().dtype(dtype).layout(layout).device(device).pinned_memory(pin_memory);
  // 0.5, 1.5, ... (n - 0.5), times stride.
  const auto centres = [&](const c10::SymInt& n) {
    return (at::empty_symint({n}, options).fill_(1).cumsum(0) - 0.5) * stride;
  };
  const at::Tensor ys = centres(sizes[0]);
  const at::Tensor xs = centres(sizes[1]);
  const std::vector<at::Tensor> grid = at::meshgrid({ys, xs}, "ij");
  return at::stack({grid[1].reshape(-1), grid[0].reshape(-1)}, 1);  // [H*W, 2] centres as (x, y)
}

::std::tuple<at::Tensor, at::Tensor> roi_pool_cpu(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                                                  at::IntArrayRef output_size, c10::optional<int64_t> sampling_ratio,
                                                  c10::string_view mode) {
  TORCH_CHECK(input.dim() == 4, "vision::roi_pool: input must be [N, C, H, W]");
  TORCH_CHECK(rois.dim() == 2 && rois.size(1) == 5, "vision::roi_pool: rois must be [K, 5]");
  TORCH_CHECK(mode == "max" || mode == "avg", "vision::roi_pool: mode must be 'max' or 'avg', got '",
              std::string(mode), "'");
  TORCH_CHECK(!sampling_ratio || *sampling_ratio >= 0, "vision::roi_pool: sampling_ratio must be >= 0");
  const int64_t K = rois.size(0), C = input.size(1), H = input.size(2), W = input.size(3);
  const int64_t oh = output_size[0], ow = output_size[1];
  at::Tensor output = at::zeros({K, C, oh, ow}, input.options());
  at::Tensor argmax = at::full({K, C, oh, ow}, -1, input.options().dtype(at::kLong));
  const at::Tensor in = input.to(at::kFloat).contiguous();
  const at::Tensor r = rois.to(at::kFloat).contiguous();
  auto inA = in.accessor<float, 4>();
  auto rA = r.accessor<float, 2>();
  at::Tensor out = output.to(at::kFloat);
  auto outA = out.accessor<float, 4>();
  auto argA = argmax.accessor<int64_t, 4>();
  for (int64_t k = 0; k < K; ++k) {
    const auto n = static_cast<int64_t>(rA[k][0]);
    const auto x1 = static_cast<int64_t>(std::round(rA[k][1] * spatial_scale));
    const auto y1 = static_cast<int64_t>(std::round(rA[k][2] * spatial_scale));
    const auto x2 = static_cast<int64_t>(std::round(rA[k][3] * spatial_scale));
    const auto y2 = static_cast<int64_t>(std::round(rA[k][4] * spatial_scale));
    const int64_t rh = std::max<int64_t>(y2 - y1 + 1, 1), rw = std::max<int64_t>(x2 - x1 + 1, 1);
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          const int64_t hs = std::clamp<int64_t>(y1 + i * rh / oh, 0, H), he = std::clamp<int64_t>(y1 + ((i + 1) * rh + oh - 1) / oh, 0, H);
          const int64_t ws = std::clamp<int64_t>(x1 + j * rw / ow, 0, W), we = std::clamp<int64_t>(x1 + ((j + 1) * rw + ow - 1) / ow, 0, W);
          float best = mode == "max" ? -std::numeric_limits<float>::infinity() : 0.f;
          int64_t where = -1, count = 0;
          for (int64_t y = hs; y < he; ++y)
            for (int64_t x = ws; x < we; ++x) {
              const float v = inA[n][c][y][x];
              ++count;
              if (mode == "avg") best += v;
              else if (v > best) best = v, where = y * W + x;
            }
          outA[k][c][i][j] = count == 0 ? 0.f : (mode == "avg" ? best / static_cast<float>(count) : best);
          argA[k][c][i][j] = where;
        }
  }
  output.copy_(out);
  return {output, argmax};
}

::std::tuple<at::Tensor, at::Tensor> roi_pool_meta(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                                                   at::IntArrayRef output_size, c10::optional<int64_t> sampling_ratio,
                                                   c10::string_view mode) {
  (void)spatial_scale;
  (void)sampling_ratio;
  (void)mode;
  TORCH_CHECK(output_size.size() == 2, "vision::roi_pool: output_size must have two values");
  const std::vector<c10::SymInt> shape = {rois.sym_size(0), input.sym_size(1), output_size[0], output_size[1]};
  return {at::empty_symint(shape, input.options()), at::empty_symint(shape, input.options().dtype(at::kLong))};
}

at::Tensor stack_boxes(at::TensorList boxes, const c10::optional<at::Tensor>& weights) {
  TORCH_CHECK(!boxes.empty(), "vision::stack_boxes: needs at least one tensor of boxes");
  at::Tensor all = at::cat(boxes, 0);
  if (weights && weights->defined()) all = all * weights->unsqueeze(1);
  return all;
}

// The in-place operator behind the generated vision::scale_boxes and vision::scale_boxes.out (whose
// kernels opgen writes). On meta (and fake) tensors it runs torchgen's in-place Meta kernel, which
// returns self.
at::Tensor& scale_boxes_cpu_(at::Tensor& boxes, double factor) {
  checkBoxes(boxes, "vision::scale_boxes_");
  const at::Tensor centre = (boxes.narrow(1, 0, 2) + boxes.narrow(1, 2, 2)) / 2;
  const at::Tensor half = (boxes.narrow(1, 2, 2) - boxes.narrow(1, 0, 2)) * (factor / 2);
  boxes.copy_(at::cat({centre - half, centre + half}, 1));
  return boxes;
}

// The functional operator behind the generated vision::box_size.out (also its Meta kernel).
std::tuple<at::Tensor, at::Tensor> box_size_cpu(const at::Tensor& boxes) {
  checkBoxes(boxes, "vision::box_size");
  return {boxes.select(1, 2) - boxes.select(1, 0), boxes.select(1, 3) - boxes.select(1, 1)};
}

}  // namespace vision::native
