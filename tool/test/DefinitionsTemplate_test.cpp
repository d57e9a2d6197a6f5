// dest::DefinitionsTemplate (dest/aten/DefinitionsTemplate.h): the definitions template reduced once
// per key must give, for every item, the lines the template itself renders (support::CodeTemplate),
// and decline what it cannot assemble exactly.
#include <gtest/gtest.h>

#include <stdexcept>

#include "dest/aten/DefinitionsTemplate.h"
#include "support/CodeTemplate.h"

namespace opgen::dest {
namespace {

// A writer whose only template is `text`, rendered by support::CodeTemplate.
class OneTemplateWriter final : public Writer {
 public:
  explicit OneTemplateWriter(std::string text) : tmpl_(text, "RegisterDispatchDefinitions.ini") {}

  std::optional<std::string> renderTemplate(std::string_view, support::TemplateEnv env) override {
    if (!env.contains("generated_comment")) env.set("generated_comment", "@generated");
    return tmpl_.substitute(env, diags_);
  }
  void write(std::string_view, const EnvFn&) override { unused(); }
  void writeWithTemplate(std::string_view, std::string_view, const EnvFn&) override { unused(); }
  void writeText(std::string_view, const TextFn&) override { unused(); }
  Existing readExisting(std::string_view) override { unused(); }
  void print(std::string) override { unused(); }
  void writeSharded(const Sharded&, std::size_t, const std::function<std::string(std::size_t)>&,
                    const std::function<ShardEnv(std::size_t)>&) override {
    unused();
  }

 private:
  [[noreturn]] static void unused() { throw std::logic_error("not used by DefinitionsTemplate"); }
  support::CodeTemplate tmpl_;
  support::Diagnostics diags_;
};

struct Item {
  std::string prologue = "namespace at {";
  std::vector<std::string> anonymous;
  std::string registrations;
  std::vector<std::string> namespaced;
  std::string epilogue = "} // namespace at";
};

// The template's text for `item`, split into lines without the empty ones (what the renderer keeps).
std::string expectedLines(Writer& writer, const Item& item) {
  support::TemplateEnv env;
  env.set("ns_prologue", item.prologue);
  env.set("ns_epilogue", item.epilogue);
  env.set("dispatch_anonymous_definitions", item.anonymous);
  env.set("static_init_dispatch_registrations", item.registrations);
  env.set("deferred_dispatch_registrations", "");
  env.set("dispatch_namespace", "cpu");
  env.set("dispatch_namespaced_definitions", item.namespaced);
  const std::optional<std::string> text = writer.renderTemplate("RegisterDispatchDefinitions.ini", std::move(env));
  if (!text) return "<error>";
  std::string lines;
  size_t start = 0;
  while (start <= text->size()) {
    size_t end = text->find('\n', start);
    if (end == std::string::npos) end = text->size();
    if (end > start) lines.append(lines.empty() ? "" : "\n").append(*text, start, end - start);
    start = end + 1;
  }
  return lines;
}

std::optional<std::string> reducedLines(const DefinitionsTemplate& reduced, const Item& item) {
  return reduced.lines({std::span(&item.prologue, 1), item.anonymous, std::span(&item.registrations, 1),
                        item.namespaced, std::span(&item.epilogue, 1)});
}

// torchgen's RegisterDispatchDefinitions.ini.
constexpr std::string_view kTorchgenTemplate = R"(${ns_prologue}

// NB: TORCH_LIBRARY_IMPL must be in an anonymous namespace to avoid
// ambiguity with conflicting identifiers that may have been defined in
// at namespace already.
namespace {

${dispatch_anonymous_definitions}

${static_init_dispatch_registrations}

} // anonymous namespace

${deferred_dispatch_registrations}

namespace ${dispatch_namespace} {

${dispatch_namespaced_definitions}

} // namespace ${dispatch_namespace}

${ns_epilogue}
)";

std::vector<Item> sampleItems() {
  std::vector<Item> items(6);
  items[0].anonymous = {"namespace {\n\nat::Tensor wrapper_CPU_add(const at::Tensor & self) {\n    // No device check\n  \n"
                        "  const DeviceGuard device_guard(device_or_default(device));\n  return at::native::add(self);\n}\n\n"
                        "} // anonymous namespace\n"};
  items[0].registrations = "\nTORCH_LIBRARY_IMPL(aten, CPU, m) {\n    m.impl(\"add\",\nTORCH_FN(wrapper_CPU_add));\n\n}";
  items[0].namespaced = {"\nat::Tensor add(const at::Tensor & self) {\nreturn wrapper_CPU_add(self);\n}\n"};
  // Several definitions, empty ones, lines of blanks, trailing blanks, no final newline.
  items[1].anonymous = {"", "a  \n\t\n b\t", "\n", "c\n\n\n"};
  items[1].namespaced = {"x", "", "  y  "};
  // Nothing but the namespaces.
  items[2].prologue = "namespace at {\nnamespace custom {";
  items[2].epilogue = "} // namespace custom\n} // namespace at";
  // Not plain: a carriage return, a form feed, a non-ASCII character, a docstring's quotes.
  items[3].anonymous = {"a\rb\n"};
  items[4].namespaced = {"\xc3\xa9\n", "x\fy"};
  items[5].registrations = "\"\"\"\ndef f(): pass";
  return items;
}

TEST(DefinitionsTemplate, TorchgensTemplateGivesTheTemplatesLines) {
  OneTemplateWriter writer{std::string(kTorchgenTemplate)};
  const std::optional<DefinitionsTemplate> reduced = DefinitionsTemplate::reduce(writer, "cpu");
  ASSERT_TRUE(reduced.has_value());
  const std::vector<Item> items = sampleItems();
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(reducedLines(*reduced, items[i]), expectedLines(writer, items[i])) << i;
  for (size_t i = 3; i < items.size(); ++i) EXPECT_EQ(reducedLines(*reduced, items[i]), std::nullopt) << i;
}

TEST(DefinitionsTemplate, IndentedBlocksAndTextAroundThem) {
  // Blocks indented with spaces and tabs, a block followed by text on its line, a variable twice,
  // lines of blanks in the template itself.
  OneTemplateWriter writer{"// ${generated_comment}\n  ${ns_prologue} {\n\t ${dispatch_anonymous_definitions}\n   \n"
                           "${static_init_dispatch_registrations};\nnamespace ${dispatch_namespace} {\n"
                           "    $dispatch_namespaced_definitions\n}\n${ns_epilogue}\n${ns_prologue}\n"};
  const std::optional<DefinitionsTemplate> reduced = DefinitionsTemplate::reduce(writer, "cpu");
  ASSERT_TRUE(reduced.has_value());
  const std::vector<Item> items = sampleItems();
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(reducedLines(*reduced, items[i]), expectedLines(writer, items[i])) << i;
}

TEST(DefinitionsTemplate, InlineItemVariablesDoNotReduce) {
  // An item variable inline (a list joined with ", ") is left to the template.
  OneTemplateWriter writer{"${ns_prologue}\nint x[] = {${dispatch_anonymous_definitions}};\n${ns_epilogue}\n"};
  EXPECT_FALSE(DefinitionsTemplate::reduce(writer, "cpu").has_value());
}

}  // namespace
}  // namespace opgen::dest
