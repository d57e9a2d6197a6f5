#include "gen/Parse.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "gen/Command.h"
#include "gen/Load.h"
#include "model/Groups.h"
#include "support/OutputSink.h"
#include "support/PhaseTimer.h"

namespace opgen::gen {

namespace {

constexpr std::string_view kUsage = R"(Usage: opgen parse NATIVE_FUNCTIONS_YAML [--tags TAGS_YAML] [--skip-autogen] [-o OUT.json] [--timings]

Checks a native_functions.yaml with torchgen's rules and prints its model as JSON (docs/commands.md
describes it), on standard output or into OUT.json (rewritten only when its content changes).

Options:
  --tags TAGS_YAML    the tags (default: tags.yaml beside the native functions file, if any)
  --skip-autogen      leave out the functions that torchgen generates (autogen:)
  -o, --output FILE   write the JSON there (not over an input file)
  --timings           print how long loading, describing and printing took
  -h, --help          this text
)";

struct ParseOptions {
  ModelFiles files;
  bool skipAutogen = false;
  std::string outPath;
  bool timings = false;
};

// The options of `opgen parse ARGS...`; an error names the problem.
support::Expected<ParseOptions> parseCommandLine(const std::vector<std::string>& args) {
  ParseOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> support::Expected<std::string> {
      if (i + 1 >= args.size()) return support::makeError(a + " needs a value");
      return args[++i];
    };
    if (a == "--tags" || a == "-o" || a == "--output") {
      support::Expected<std::string> v = value();
      if (!v) return v.error();
      (a == "--tags" ? o.files.tags.emplace() : o.outPath) = v.take();
    } else if (a == "--timings") {
      o.timings = true;
    } else if (a == "--skip-autogen") {
      o.skipAutogen = true;
    } else if (!a.empty() && a[0] == '-') {
      return support::makeError("unknown option '" + a + "'");
    } else if (o.files.nativeFunctions.empty()) {
      o.files.nativeFunctions = a;
    } else {
      return support::makeError("unexpected argument '" + a + "'");
    }
  }
  if (o.files.nativeFunctions.empty()) return support::makeError("missing NATIVE_FUNCTIONS_YAML");
  return o;
}

Outcome runParse(const Invocation& invocation, support::Diagnostics& diags) {
  if (printedUsage(invocation, kUsage)) return {};
  support::Expected<ParseOptions> options = parseCommandLine(invocation.args);
  if (!options) return usageError("parse", options.error().message);
  // Through another name or a link too: the file itself, not its spelling.
  for (const std::string& input : {options->files.nativeFunctions, options->files.tagsPath()})
    if (!options->outPath.empty() && !input.empty() && support::isSameFile(options->outPath, input))
      return usageError("parse", "-o " + options->outPath + " is the input file " + input + ": refusing to overwrite it");
  support::PhaseTimer timer;
  model::LoadOptions load;
  load.skipNativeFunctionsGen = options->skipAutogen;
  std::optional<model::Operators> ops = loadModel(options->files, load, diags);
  timer.lap("load");
  if (!ops) return finished(diags);
  const nlohmann::ordered_json model = describeModel(*ops);
  timer.lap("describe");
  const std::string text = model.dump(1) + "\n";
  timer.lap("dump");
  if (options->timings) timer.print(std::cerr, "parse");
  if (options->outPath.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return finished(diags);
  }
  const std::filesystem::path out(options->outPath);
  support::FileTransaction transaction(diags);
  support::DirectorySink sink(out.has_parent_path() ? out.parent_path() : ".", transaction);
  if (sink.write(out.filename().string(), text) && transaction.commit()) {
    const auto& counts = model["counts"];
    std::cerr << "opgen: wrote " << options->outPath << ": the model of " << options->files.nativeFunctions << ", "
              << counts["native_functions"] << " native functions, " << counts["groups"] << " groups, "
              << counts["view_groups"] << " view groups, " << model["backend_indices"].size() << " dispatch keys\n";
  }
  return finished(diags);
}

nlohmann::ordered_json nameOrNull(const model::NativeFunction* f) {
  return f ? nlohmann::ordered_json(f->func.name.str()) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json describeFunction(const model::NativeFunction& f, const model::Operators& ops) {
  nlohmann::ordered_json j;
  const std::string name = f.func.name.str();
  j["name"] = name;
  j["namespace"] = f.ns;
  j["func"] = f.funcText.empty() ? (f.explicitNamespace ? f.ns + "::" : std::string()) + f.func.str() : f.funcText;
  j["location"] = f.loc.str();
  j["generated"] = f.generated();
  j["kind"] = std::string(model::schemaKindName(f.func.kind()));
  nlohmann::ordered_json dispatch = nlohmann::ordered_json::object();
  for (const auto& index : ops.backendIndices()) {
    if (const auto* m = index.find(std::string_view(name))) {
      std::string kernel = m->cppNamespace == "at::native" ? m->kernel : m->cppNamespace + "::" + m->kernel;
      dispatch[std::string(model::dispatchKeyName(index.dispatchKey()))] = kernel;
    }
  }
  j["dispatch"] = dispatch;
  j["structured"] = f.structured;
  j["structured_delegate"] = f.structuredDelegate ? nlohmann::ordered_json(f.structuredDelegate->str()) : nullptr;
  j["tags"] = f.tags;  // std::set: sorted
  nlohmann::ordered_json variants = nlohmann::ordered_json::array();
  if (f.hasVariant(model::Variant::Function)) variants.push_back("function");
  if (f.hasVariant(model::Variant::Method)) variants.push_back("method");
  j["variants"] = variants;
  return j;
}

}  // namespace

nlohmann::ordered_json describeModel(const model::Operators& ops) {
  nlohmann::ordered_json j;
  nlohmann::ordered_json functions = nlohmann::ordered_json::array();
  for (const model::NativeFunction* f : ops.functions()) functions.push_back(describeFunction(*f, ops));
  j["native_functions"] = std::move(functions);

  nlohmann::ordered_json groupList = nlohmann::ordered_json::array();
  for (const auto& item : ops.grouped()) {
    if (const auto* g = std::get_if<model::NativeFunctionsGroup>(&item)) {
      nlohmann::ordered_json e;
      e["functional"] = nameOrNull(g->functional);
      e["inplace"] = nameOrNull(g->inplace);
      e["mutable"] = nameOrNull(g->mutableFn);
      e["out"] = nameOrNull(g->out);
      e["structured"] = g->structured();
      groupList.push_back(std::move(e));
    }
  }
  nlohmann::ordered_json viewList = nlohmann::ordered_json::array();
  for (const auto& item : ops.groupedByView()) {
    if (const auto* g = std::get_if<model::NativeFunctionsViewGroup>(&item)) {
      nlohmann::ordered_json e;
      e["view"] = nameOrNull(g->view);
      e["view_inplace"] = nameOrNull(g->viewInplace);
      e["view_copy"] = nameOrNull(g->viewCopy);
      viewList.push_back(std::move(e));
    }
  }
  nlohmann::ordered_json counts;
  counts["native_functions"] = ops.functions().size();
  counts["groups"] = groupList.size();
  counts["view_groups"] = viewList.size();
  j["groups"] = std::move(groupList);
  j["view_groups"] = std::move(viewList);
  j["counts"] = std::move(counts);
  nlohmann::ordered_json indices = nlohmann::ordered_json::object();
  for (const auto& index : ops.backendIndices()) indices[std::string(model::dispatchKeyName(index.dispatchKey()))] = index.size();
  j["backend_indices"] = std::move(indices);
  return j;
}

const Command kParseCommand{
    .name = "parse",
    .synopsis = R"(  opgen parse NATIVE_FUNCTIONS_YAML [--tags TAGS_YAML] [--skip-autogen] [-o OUT.json] [--timings]
        Check a native_functions.yaml and print its model as JSON (see docs/commands.md).
)",
    .run = runParse};

}  // namespace opgen::gen
