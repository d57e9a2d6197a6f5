// Calls the vision operators through the generated C++ API (<vision/Functions.h>), which goes
// through PyTorch's dispatcher to the kernels registered for CPU, Meta and the composite keys.
#include <vision/Functions.h>

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/version.h>

namespace {

at::Tensor boxes() { return at::tensor({0.f, 0.f, 2.f, 2.f, 1.f, 1.f, 3.f, 3.f, 10.f, 10.f, 11.f, 12.f}).reshape({3, 4}); }

TEST(Vision, NmsKeepsTheBestOfOverlappingBoxes) {
  const at::Tensor scores = at::tensor({0.9f, 0.8f, 0.7f});
  EXPECT_TRUE(at::equal(vision::nms(boxes(), scores, 0.1), at::tensor({0, 2}, at::kLong)));
  EXPECT_TRUE(at::equal(vision::nms(boxes(), scores, 0.5), at::tensor({0, 1, 2}, at::kLong)));
}

TEST(Vision, MetaKernelsGiveShapesWithoutData) {
  const at::Tensor b = at::empty({5, 4}, at::TensorOptions().device(at::kMeta));
  const auto [width, height] = vision::box_size(b);
  EXPECT_TRUE(width.is_meta());
  EXPECT_EQ(height.sizes(), (std::vector<int64_t>{5}));
  auto [out, argmax] = vision::roi_pool(at::empty({1, 3, 8, 8}, b.options()), at::empty({2, 5}, b.options()), 1.0, {2, 2});
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 3, 2, 2}));
  EXPECT_EQ(argmax.scalar_type(), at::kLong);
}

// nms's fake kernel is a Python one (fake.py, `fake: python`): without Python, it has no Meta kernel,
// and PyTorch 2's error names the Python module that has it (the registration's set_python_module).
TEST(Vision, AnOperatorWithAPythonFakeKernelNamesItsModuleOnMetaTensors) {
  const at::Tensor b = at::empty({5, 4}, at::TensorOptions().device(at::kMeta));
  try {
    vision::nms(b, at::empty({5}, b.options()), 0.5);
    FAIL() << "nms ran on meta tensors without its Python fake kernel";
  } catch (const c10::Error& e) {
    const std::string what = e.what();
#if TORCH_VERSION_MAJOR >= 2
    EXPECT_NE(what.find("it is located in the python module vision.fake"), std::string::npos) << what;
#else
    EXPECT_NE(what.find("Meta"), std::string::npos) << what;
#endif
  }
}

TEST(Vision, StructuredFunctionalInplaceAndOut) {
  const at::Tensor a = at::ones({2, 3}), b = at::full({2, 3}, 2.0);
  EXPECT_TRUE(at::allclose(vision::scale_add(a, b), at::full({2, 3}, 3.0)));           // default alpha=1
  EXPECT_TRUE(at::allclose(vision::scale_add(a, b, 0.5), at::full({2, 3}, 2.0)));
  at::Tensor out = at::empty({0});
  vision::scale_add_out(out, a, b, 2);  // resized by the structured kernel
  EXPECT_TRUE(at::allclose(out, at::full({2, 3}, 5.0)));
  at::Tensor out2 = at::empty({2, 3});
  vision::scale_add_outf(a, b, 3, out2);
  EXPECT_TRUE(at::allclose(out2, at::full({2, 3}, 7.0)));
  at::Tensor c = at::ones({2, 3});
  at::Tensor& same = vision::scale_add_(c, b, -1);
  EXPECT_EQ(same.data_ptr(), c.data_ptr());
  EXPECT_TRUE(at::allclose(c, at::full({2, 3}, -1.0)));
  EXPECT_THROW(vision::scale_add(a, at::ones({3})), c10::Error);  // the meta function's check
}

TEST(Vision, CompositeKernels) {
  EXPECT_TRUE(at::allclose(vision::box_area(boxes()), at::tensor({4.f, 4.f, 2.f})));
  const at::Tensor iou = vision::box_iou(boxes(), boxes());
  EXPECT_EQ(iou.sizes(), (std::vector<int64_t>{3, 3}));
  EXPECT_NEAR(iou[0][1].item<float>(), 1.f / 7.f, 1e-6);
  EXPECT_EQ(vision::box_iou(boxes(), boxes(), /*aligned=*/true).sizes(), (std::vector<int64_t>{3}));
  const at::Tensor xywh = vision::box_convert(boxes(), "xyxy", "xywh");
  EXPECT_TRUE(at::allclose(vision::box_convert(xywh, "xywh", "xyxy"), boxes()));
  EXPECT_TRUE(at::allclose(vision::clip_boxes(boxes(), {2, 2}).max(), at::tensor(2.f)));
}

TEST(Vision, FactoryWithTensorOptions) {
  const at::Tensor grid = vision::anchor_grid({2, 3}, 4.0, at::TensorOptions().dtype(at::kDouble));
  EXPECT_EQ(grid.sizes(), (std::vector<int64_t>{6, 2}));
  EXPECT_EQ(grid.scalar_type(), at::kDouble);
  EXPECT_DOUBLE_EQ(grid[5][0].item<double>(), 10.0);
  EXPECT_EQ(vision::anchor_grid({1, 1}, 1.0).scalar_type(), at::kFloat);  // the default dtype
}

TEST(Vision, ListsOptionalsStringsAndTuples) {
  const at::Tensor stacked = vision::stack_boxes({boxes(), boxes()});
  EXPECT_EQ(stacked.sizes(), (std::vector<int64_t>{6, 4}));
  const at::Tensor weighted = vision::stack_boxes({boxes()}, at::tensor({1.f, 0.f, 2.f}));
  EXPECT_TRUE(at::allclose(weighted[1], at::zeros({4})));
  const at::Tensor input = at::arange(16, at::kFloat).reshape({1, 1, 4, 4});
  const at::Tensor rois = at::tensor({0.f, 0.f, 0.f, 3.f, 3.f}).reshape({1, 5});
  auto [maxed, argmax] = vision::roi_pool(input, rois, 1.0, {2, 2});
  EXPECT_TRUE(at::allclose(maxed.flatten(), at::tensor({5.f, 7.f, 13.f, 15.f})));
  EXPECT_EQ(argmax.flatten()[3].item<int64_t>(), 15);
  auto [averaged, unused] = vision::roi_pool(input, rois, 1.0, {1, 1}, /*sampling_ratio=*/2, "avg");
  EXPECT_FLOAT_EQ(averaged.item<float>(), 7.5f);
  EXPECT_THROW(vision::roi_pool(input, rois, 1.0, {1, 1}, c10::nullopt, "median"), c10::Error);
}

// autogen: the functional and out= variants run kernels that opgen generated from the in-place or
// functional kernel in kernels.cpp.
TEST(Vision, AutogenFunctionalAndOutVariants) {
  const at::Tensor scaled = at::tensor({-1.f, -1.f, 3.f, 3.f, 0.f, 0.f, 4.f, 4.f, 9.5f, 9.f, 11.5f, 13.f}).reshape({3, 4});
  const at::Tensor original = boxes();
  EXPECT_TRUE(at::allclose(vision::scale_boxes(original, 2.0), scaled));  // functional: a scaled copy
  EXPECT_TRUE(at::equal(original, boxes()));                              // ... the input unchanged
  at::Tensor out = at::empty({0});
  at::Tensor& result = vision::scale_boxes_out(out, boxes(), 2.0);  // resized, then filled
  EXPECT_EQ(result.data_ptr(), out.data_ptr());
  EXPECT_TRUE(at::allclose(out, scaled));
  at::Tensor out2 = at::zeros({3, 4});
  vision::scale_boxes_outf(boxes(), 0.5, out2);
  auto [halfWidth, halfHeight] = vision::box_size(out2);  // an out of the right shape: filled in place
  EXPECT_TRUE(at::allclose(halfWidth, at::tensor({1.f, 1.f, 0.5f})));
  EXPECT_TRUE(at::allclose(halfHeight, at::tensor({1.f, 1.f, 1.f})));
  at::Tensor width = at::empty({0}), height = at::empty({0});
  vision::box_size_out(width, height, boxes());
  EXPECT_TRUE(at::allclose(width, at::tensor({2.f, 2.f, 1.f})));
  EXPECT_TRUE(at::allclose(height, at::tensor({2.f, 2.f, 2.f})));
  at::Tensor wrongType = at::empty({3}, at::kLong);
  EXPECT_THROW(vision::box_size_outf(boxes(), wrongType, height), c10::Error);  // dtype checked before the copy
}

}  // namespace
