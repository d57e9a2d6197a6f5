#include "dest/common/RegistrationHelpers.h"

#include <optional>

#include "dest/common/RegisterDispatchKey.h"
#include "support/CodeText.h"

namespace opgen::dest {

namespace {

using model::DispatchKey;

// The helpers of structured kernels, each for the keys that use it (gen_registration_helpers).
constexpr std::string_view kHelpersPush = "C10_DIAGNOSTIC_PUSH_AND_IGNORED_IF_DEFINED(\"-Wunused-function\")";
constexpr std::string_view kHelpersPop = "C10_DIAGNOSTIC_POP()";
// A libtorch without C10_DIAGNOSTIC_PUSH_AND_IGNORED_IF_DEFINED (1.x): the pragmas themselves.
constexpr std::string_view kHelpersPushPragmas =
    "#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored \"-Wunused-function\"";
constexpr std::string_view kHelpersPopPragmas = "#pragma GCC diagnostic pop";

//   $empty$ and $empty_strided$ the key's tensor factories, $options$ the options they get
constexpr std::string_view kCreateOutHelper = R"cc(
Tensor create_out(IntArrayRef sizes, IntArrayRef strides, const TensorOptions &options) {
  if (strides.empty()) {
      return $empty$(sizes, $options$);
  } else {
      return $empty_strided$(sizes, strides, $options$);
  }
}
)cc";

constexpr std::string_view kResizeOutHelper = R"cc(
void resize_out(const Tensor &out, IntArrayRef sizes, IntArrayRef strides, const TensorOptions &options) {
  TORCH_CHECK(options.dtype() == out.dtype(),
      "Expected out tensor to have dtype ", options.dtype(), ", but got ", out.dtype(), " instead");
  TORCH_CHECK(options.device() == out.device(),
      "Expected out tensor to have device ", options.device(), ", but got ", out.device(), " instead");
  const bool resized = at::native::resize_output(out, sizes);
  // Only restride if a resize occurred; otherwise we ignore the (advisory)
  // strides from the meta function and directly use the output tensor's
  // preexisting strides
  if (resized) {
    if (!strides.empty()) {
      TORCH_INTERNAL_ASSERT(!options.memory_format_opt().has_value());
      // TODO: avoid the redispatch here
      out.as_strided_(sizes, strides);
    } else if (options.memory_format_opt().has_value()) {
      out.unsafeGetTensorImpl()->empty_tensor_restride(*options.memory_format_opt());
    }
  }
}
)cc";

constexpr std::string_view kCheckInplaceHelper = R"cc(
void check_inplace(const Tensor &self, IntArrayRef sizes, const TensorOptions &options) {
  // These checks are needed on those operators that:
  //   1) don't use 'TensorIterator' (e.g. 'addmm' and 'baddbmm')
  //   2) have particular typing rules (e.g. 'cumsum' and 'cumprod')
  // For other operators (e.g. 'add'), 'TensorIterator' already checks
  // these things separately.
  TORCH_CHECK(options.dtype() == self.dtype(),
      "Bad in-place call: ",
      "input tensor dtype ", self.dtype(), " and output tensor dtype ", options.dtype(), " should match");
  TORCH_CHECK(options.device() == self.device(),
      "Bad in-place call: ",
      "input tensor device ", self.device(), " and output tensor device ", options.device(), " should match");
  TORCH_CHECK(sizes == self.sizes(),
      "Bad in-place call: ",
      "input tensor size ", self.sizes(), " and output tensor size ", sizes, " should match");
}
)cc";

//   $empty_strided$ the key's strided tensor factory
constexpr std::string_view kMaybeCreateProxyHelper = R"cc(
std::optional<Tensor> maybe_create_proxy(const Tensor &out, IntArrayRef sizes, IntArrayRef strides, const TensorOptions &options) {
  if (out.strides() != strides) {
    return $empty_strided$(sizes, strides, options);
  }
  return std::nullopt;
}
)cc";

}  // namespace

// gen_registration_headers.
std::vector<std::string> registrationHeaders(const model::BackendIndex& index, bool perOperatorHeaders, bool rocm) {
  std::vector<std::string> headers = {perOperatorHeaders ? "#include <ATen/ops/as_strided_native.h>"
                                                         : "#include <ATen/NativeFunctions.h>"};
  switch (index.dispatchKey()) {
    case DispatchKey::CPU:
    case DispatchKey::Meta: headers.emplace_back("#include <ATen/EmptyTensor.h>"); break;
    case DispatchKey::CUDA:
      headers.emplace_back(rocm ? "#include <ATen/hip/EmptyTensor.h>" : "#include <ATen/cuda/EmptyTensor.h>");
      break;
    case DispatchKey::MPS: headers.emplace_back("#include <ATen/mps/EmptyTensor.h>"); break;
    case DispatchKey::XPU: headers.emplace_back("#include <ATen/xpu/EmptyTensor.h>"); break;
    case DispatchKey::MTIA: headers.emplace_back("#include <ATen/native/mtia/EmptyTensor.h>"); break;
    default:
      if (perOperatorHeaders) {
        headers.insert(headers.end(), {"#include <ATen/ops/empty.h>", "#include <ATen/ops/empty_strided.h>",
                                       "#include <ATen/ops/_copy_from_and_resize.h>", "#include <ATen/ops/_copy_from.h>"});
      } else {
        headers.emplace_back("#include <ATen/Functions.h>");
      }
  }
  headers.emplace_back("#include <c10/macros/Macros.h>");
  return headers;
}

// gen_empty_impl_names: the tensor factories of structured kernels' outputs, if the key has them.
namespace {
struct EmptyImpls {
  std::string empty, emptyStrided;
};
}  // namespace
namespace {
std::optional<EmptyImpls> emptyImpls(DispatchKey key) {
  switch (key) {
    case DispatchKey::Meta:
    case DispatchKey::CPU:
    case DispatchKey::CUDA:
    case DispatchKey::MPS:
    case DispatchKey::XPU:
    case DispatchKey::MTIA: {
      const std::string dispatch = lowerKeyName(key);
      return EmptyImpls{"at::detail::empty_" + dispatch, "at::detail::empty_strided_" + dispatch};
    }
    case DispatchKey::CompositeExplicitAutogradNonFunctional:
    case DispatchKey::QuantizedCPU:
    case DispatchKey::QuantizedCUDA: return EmptyImpls{"at::empty", "at::empty_strided"};
    default: return std::nullopt;
  }
}
}  // namespace

// gen_registration_helpers.
std::vector<std::string> registrationHelpers(const model::BackendIndex& index, const api::LibtorchFacts& libtorch) {
  const DispatchKey key = index.dispatchKey();
  std::optional<EmptyImpls> impls = emptyImpls(key);
  // An external backend's structured kernels (beyond torchgen) create outputs through the dispatcher.
  if (!impls && index.external()) {
    for (const auto& [name, m] : index.entries())
      if (m.structured) impls = EmptyImpls{"at::empty", "at::empty_strided"};
  }
  const bool pragmas = !libtorch.diagnosticMacros;
  std::vector<std::string> helpers = {std::string(pragmas ? kHelpersPushPragmas : kHelpersPush)};
  if (impls) {
    helpers.push_back(support::fillSnippet(kCreateOutHelper,
                                  {{"empty", impls->empty},
                                   {"empty_strided", impls->emptyStrided},
                                   {"options", key == DispatchKey::Meta ? "options.device(at::kMeta)" : "options"}}));
  }
  // CompositeExplicitAutogradNonFunctional only has functional kernels: resize_out would be unused.
  if (key != DispatchKey::CompositeExplicitAutogradNonFunctional) helpers.emplace_back(kResizeOutHelper);
  helpers.emplace_back(kCheckInplaceHelper);
  if (impls) helpers.push_back(support::fillSnippet(kMaybeCreateProxyHelper, {{"empty_strided", impls->emptyStrided}}));
  helpers.emplace_back(pragmas ? kHelpersPopPragmas : kHelpersPop);
  return helpers;
}

}  // namespace opgen::dest
