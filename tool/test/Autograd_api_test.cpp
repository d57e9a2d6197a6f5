// api/Autograd: how graph nodes keep the values formulas use, per type and libtorch.
#include <gtest/gtest.h>

#include "api/Autograd.h"

namespace opgen::api {
namespace {

SavedValue saved(std::string_view argument, const LibtorchFacts& libtorch = {}) {
  support::Expected<model::Argument> a = model::Argument::parse(argument);
  EXPECT_TRUE(a) << a.error().message;
  support::Expected<SavedValue> v = savedArgument(*a, libtorch);
  EXPECT_TRUE(v) << v.error().message;
  return v ? *v : SavedValue{};
}

TEST(AutogradApi, TensorsAreSavedVariables) {
  const SavedValue v = saved("Tensor self");
  EXPECT_EQ(v.type, "torch::autograd::SavedVariable");
  EXPECT_EQ(v.save("self"), "torch::autograd::SavedVariable(self, false)");
  EXPECT_EQ(v.unpack, "self_.unpack()");
  EXPECT_TRUE(v.isTensor());
  EXPECT_EQ(v.releases(), std::vector<std::string>{"self_.reset_data();"});
  EXPECT_EQ(savedReturn("result", LibtorchFacts{}).unpack, "result_.unpack(getptr())");
  EXPECT_EQ(savedReturn("result", LibtorchFacts::ofVersion(1, 13)).unpack, "result_.unpack(shared_from_this())");
  EXPECT_EQ(savedReturn("values", LibtorchFacts::ofVersion(1, 13)).save("values"), "torch::autograd::SavedVariable(values, true)");
  // torchgen's: an in-place operator's output may be a view it modified in place.
  EXPECT_EQ(savedReturn("result", LibtorchFacts{}, /*inplace=*/true).save("self"),
            "torch::autograd::SavedVariable(self, true, self.is_view())");
}

TEST(AutogradApi, OptionalTensorsAndTensorLists) {
  const SavedValue optional = saved("Tensor? weight");
  EXPECT_EQ(optional.type, "torch::autograd::SavedVariable");  // undefined when absent
  EXPECT_EQ(optional.save("weight"), "torch::autograd::SavedVariable(weight, false)");
  EXPECT_EQ(optional.unpack, "weight_.unpack()");
  const SavedValue list = saved("Tensor[] tensors");
  EXPECT_EQ(list.kind, SavedValue::Kind::TensorList);
  EXPECT_EQ(list.declarations(), (std::vector<std::string>{"std::vector<torch::autograd::SavedVariable> tensors_;",
                                                           "bool tensors_released_ = false;"}));
  EXPECT_EQ(list.save("tensors"), "torch::autograd::make_saved_variable_list(tensors)");
  EXPECT_EQ(list.unpack, "opgen_unpack_list(tensors_, tensors_released_)");
  EXPECT_EQ(list.releases(), (std::vector<std::string>{"tensors_.clear();", "tensors_released_ = true;"}));
}

TEST(AutogradApi, ValuesAreOwnedCopies) {
  EXPECT_EQ(saved("int dim").type, "int64_t");
  EXPECT_EQ(saved("Scalar alpha").type, "at::Scalar");
  EXPECT_EQ(saved("str mode").type, "std::string");
  EXPECT_EQ(saved("str mode").save("mode"), "std::string(mode)");  // (1.x: c10::string_view does not convert)
  const SavedValue sizes = saved("int[] size");
  EXPECT_EQ(sizes.type, "std::vector<int64_t>");  // an IntArrayRef would dangle
  EXPECT_EQ(sizes.save("size"), "size.vec()");
  EXPECT_EQ(saved("float? eps", LibtorchFacts::ofVersion(1, 13)).type, "c10::optional<double>");
  EXPECT_EQ(saved("float? eps", LibtorchFacts{}).type, "::std::optional<double>");
}

TEST(AutogradApi, TypesNodesCannotKeepYetAreErrors) {
  for (std::string_view text : {"Tensor?[] indices", "Generator? generator", "Layout layout"}) {
    support::Expected<model::Argument> a = model::Argument::parse(text);
    ASSERT_TRUE(a);
    support::Expected<SavedValue> v = savedArgument(*a, LibtorchFacts{});
    ASSERT_FALSE(v) << text;
    EXPECT_NE(v.error().message.find("graph nodes cannot keep that type yet"), std::string::npos) << v.error().message;
  }
}

}  // namespace
}  // namespace opgen::api
