// torchgen's FileManager (torchgen/utils.py) over opgen's support layer: renders templates read from
// a template directory, records every output path (also in a dry run, which writes nothing), refuses
// to write a path twice, shards (write_sharded) and lists its outputs for CMake (write_outputs).
//
// Files go to an OutputSink per output directory (OutputDirs): on disk, DirectorySinks (written only
// when the content changes, through a temporary file and a rename); in tests, MemorySinks.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "dest/common/Emit.h"
#include "support/CodeTemplate.h"
#include "support/Diagnostics.h"
#include "support/OutputSink.h"

namespace opgen::gen {

// The sinks of a run, one per output directory (the directory as spelled by purePath()). Output
// families run on several threads: implementations are thread-safe.
class OutputDirs {
 public:
  virtual ~OutputDirs() = default;
  virtual support::OutputSink& sinkFor(const std::string& dir) = 0;
  // Creates `dir` (torchgen creates its output directories up front, even in a dry run).
  virtual void makeDirectory(const std::string& dir) = 0;
  // The bytes of dir/relPath as it was before the run, or nullopt when there is no such file.
  virtual std::optional<std::string> readExisting(const std::string& dir, std::string_view relPath) = 0;

  // Lines for standard output (torchgen's print()), in the order printed.
  void print(std::string line) {
    std::lock_guard<std::mutex> lock(printedMutex_);
    printed_.push_back(std::move(line));
  }
  std::vector<std::string> printed() const {
    std::lock_guard<std::mutex> lock(printedMutex_);
    return printed_;
  }

 private:
  mutable std::mutex printedMutex_;
  std::vector<std::string> printed_;
};

// DirectorySinks below the current directory (a relative output directory is relative to it), all
// in one FileTransaction: nothing reaches its name before commit(), and a run with an error changes
// no file.
class DiskOutputDirs final : public OutputDirs {
 public:
  explicit DiskOutputDirs(support::Diagnostics& diags) : diags_(diags), files_(diags) {}
  support::OutputSink& sinkFor(const std::string& dir) override;
  // After an error (this one's or another's), does nothing: the run has failed already.
  void makeDirectory(const std::string& dir) override;
  std::optional<std::string> readExisting(const std::string& dir, std::string_view relPath) override;
  // Files written (new or changed) and files left alone because their content was already there.
  int writtenCount() const;
  int unchangedCount() const;
  // Every file written gets its name; or, when the diagnostics hold an error, none does (see
  // support::FileTransaction::commit).
  bool commit() { return files_.commit(); }
  support::FileTransaction& files() { return files_; }

 private:
  support::Diagnostics& diags_;
  support::FileTransaction files_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<support::DirectorySink>> sinks_;
  std::set<std::string> newDirectories_;  // created by makeDirectory, with their new parents (normalized)
};

// torchgen's functools.cache over template files: each template is read and parsed once per run.
class TemplateCache {
 public:
  explicit TemplateCache(support::Diagnostics& diags) : inputs_(diags) {}
  // nullptr after reporting "PATH: error: cannot read template: ...".
  const support::CodeTemplate* get(const std::string& path);
  // Makes `text` the template at `path` (a template made by the run itself, as torchgen's
  // gen_variable_type writes one and reads it back), unless that path was read already.
  void provide(const std::string& path, std::string_view text);
  // Every template read (for depfiles).
  const std::vector<std::string>& paths() const { return inputs_.paths(); }

 private:
  std::mutex mutex_;
  support::InputFiles inputs_;
  std::map<std::string, std::optional<support::CodeTemplate>> templates_;
};

// Renders templates read from one template directory (a plugin's own: templates/library,
// templates/backend) into a MemorySink, below `prefix`, so that nothing reaches the disk unless the
// whole run succeeds. It adds no generated_comment (the emitters set it) and does not shard.
class MemoryWriter final : public dest::Writer {
 public:
  MemoryWriter(std::string templateDir, std::string prefix, TemplateCache& templates, support::MemorySink& sink,
               support::Diagnostics& diags)
      : templateDir_(std::move(templateDir)), prefix_(std::move(prefix)), templates_(templates), sink_(sink),
        diags_(diags) {}

  void write(std::string_view filename, const dest::EnvFn& env) override { writeWithTemplate(filename, filename, env); }
  void writeWithTemplate(std::string_view filename, std::string_view templateName, const dest::EnvFn& env) override;
  void writeText(std::string_view filename, const dest::TextFn& text) override { store(filename, text()); }
  std::optional<std::string> renderTemplate(std::string_view templateName, support::TemplateEnv env) override;
  // Reads no existing outputs and prints nothing (only `opgen gen` needs them).
  Existing readExisting(std::string_view filename) override { return {prefix_ + std::string(filename), std::nullopt}; }
  void print(std::string line) override { diags_.note({}, std::move(line)); }
  void writeSharded(const dest::Sharded& spec, std::size_t, const std::function<std::string(std::size_t)>&,
                    const std::function<dest::ShardEnv(std::size_t)>&) override;

 private:
  void store(std::string_view filename, std::string text) { sink_.write(prefix_ + std::string(filename), std::move(text)); }

  std::string templateDir_, prefix_;
  TemplateCache& templates_;
  support::MemorySink& sink_;
  support::Diagnostics& diags_;
};

// The plugin's templates of `product` (library, backend): installed beside the executable
// (PREFIX/bin/opgen, PREFIX/share/opgen/templates/PRODUCT), or the source tree's for a build-tree opgen.
std::string pluginTemplateDir(const std::string& executable, std::string_view product);

// Stages a run's depfile (FILE: the stamp's dependencies, for the build tool) and its stamp (touched,
// staged last), when asked for: the build's record of a successful run changes with its outputs.
// False after reporting.
bool stageDepfileAndStamp(const std::optional<std::string>& depfile, const std::optional<std::string>& stamp,
                          const std::vector<std::string>& deps, support::FileTransaction& files);

// torchgen's post-processing of every rendered template (substitute_with_template): a run of blank
// lines after a closing `"""` that is followed by (decorators and) a `class` or `def` becomes
// exactly one blank line. The text is unchanged when it holds no `"""`.
std::string fixDocstringSpacing(std::string text);

class FileManager final : public dest::Writer {
 public:
  FileManager(std::string installDir, std::string templateDir, bool dryRun, TemplateCache& templates,
              OutputDirs& outputs, support::Diagnostics& diags);

  void write(std::string_view filename, const dest::EnvFn& env) override;
  void writeWithTemplate(std::string_view filename, std::string_view templateName, const dest::EnvFn& env) override;
  void writeText(std::string_view filename, const dest::TextFn& text) override;
  void writeTextIn(std::string_view filename, const dest::TextInFn& text) override;
  std::optional<std::string> renderTemplate(std::string_view templateName, support::TemplateEnv env) override {
    return render(templateName, std::move(env));
  }
  void writeSharded(const dest::Sharded& spec, std::size_t itemCount,
                    const std::function<std::string(std::size_t)>& key,
                    const std::function<dest::ShardEnv(std::size_t)>& env) override;
  using dest::Writer::writeSharded;
  Existing readExisting(std::string_view filename) override;
  void print(std::string line) override { outputs_.print(std::move(line)); }

  // The install directory as torchgen spells it (purePath of what was given).
  const std::string& installDir() const { return installDir_; }
  // torchgen's FileManager.files: INSTALL_DIR/FILENAME of every output, in pathlib order (without
  // the Everything files of sharded outputs, which are written but not compiled).
  std::vector<std::string> filenames() const;
  // torchgen's write_outputs content: "set(\nVARIABLE\n    \"PATH\"\n...)" without a final newline.
  std::string outputsList(std::string_view variableName) const;

 private:
  // Records INSTALL_DIR/filename; false (after reporting) when it was already recorded.
  bool record(std::string_view filename);
  void store(std::string_view filename, std::string_view content);
  // The rendered template (with the default generated_comment and torchgen's docstring spacing) in
  // the calling thread's render buffer, valid until its next renderToBuffer; nullptr when rendering
  // fails. A file that goes straight to the sink is rendered there: the buffer's memory is allocated
  // and touched once, where a string per file would fault in fresh pages and regrow for every large
  // output.
  const std::string* renderToBuffer(std::string_view templateName, support::TemplateEnv env);
  // The same text, as a string of its own (for emitters that build on it).
  std::optional<std::string> render(std::string_view templateName, support::TemplateEnv env);
  // Whether TEMPLATE_DIR/templateName uses `variable` (true when the template cannot be read).
  bool templateUses(std::string_view templateName, std::string_view variable);

  // A template as this manager names it, with the generated_comment it gets by default: looked up
  // by name once, not through its full path for every file.
  struct NamedTemplate {
    const support::CodeTemplate* tmpl;  // nullptr when it cannot be read (reported once)
    std::string generatedComment;
  };
  const NamedTemplate& templateNamed(std::string_view templateName);

  std::string installDir_;
  std::string templateDir_;
  bool dryRun_;
  TemplateCache& templates_;
  OutputDirs& outputs_;
  support::Diagnostics& diags_;
  mutable std::mutex filesMutex_;
  std::unordered_set<std::string> files_;  // (sorted when listed)
  std::mutex namedMutex_;
  std::map<std::string, NamedTemplate, std::less<>> named_;
};

}  // namespace opgen::gen
