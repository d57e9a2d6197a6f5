#include "gen/FileManager.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "gen/PurePath.h"
#include "support/Sharding.h"
#include "support/Strings.h"

namespace opgen::gen {

namespace {

constexpr std::string_view kGenerator = "torchgen/gen.py";  // what torchgen names itself when run as a module

// Bytes taken by the character at s[i] if Python's regex \s matches it (str.isspace()), else 0.
size_t spaceAt(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) return (b == ' ' || (b >= '\t' && b <= '\r') || (b >= 0x1C && b <= 0x1F)) ? 1 : 0;
  auto next = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
  if (b == 0xC2) return next(1) == 0x85 || next(1) == 0xA0 ? 2 : 0;
  char32_t c = 0;
  if (b >= 0xE0 && b <= 0xEF && (next(1) & 0xC0) == 0x80 && (next(2) & 0xC0) == 0x80)
    c = (char32_t(b & 0x0F) << 12) | (char32_t(next(1) & 0x3F) << 6) | (next(2) & 0x3F);
  const bool space = c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
                     c == 0x205F || c == 0x3000;
  return space ? 3 : 0;
}

size_t skipSpaces(std::string_view s, size_t i) {
  while (i < s.size()) {
    const size_t n = spaceAt(s, i);
    if (n == 0) break;
    i += n;
  }
  return i;
}

// Where the regex (\s*@.+\n)*\s*(class|def) matched at `i` ends, or npos. The regex has one way to
// match: each decorator line is `@` plus the rest of its line (at least one character).
size_t matchDefinition(std::string_view s, size_t i) {
  for (;;) {
    const size_t q = skipSpaces(s, i);
    if (s.compare(q, 5, "class") == 0) return q + 5;
    if (s.compare(q, 3, "def") == 0) return q + 3;
    if (q >= s.size() || s[q] != '@') return std::string_view::npos;
    const size_t eol = s.find('\n', q + 1);
    if (eol == std::string_view::npos || eol == q + 1) return std::string_view::npos;
    i = eol + 1;
  }
}

}  // namespace

std::string fixDocstringSpacing(std::string text) {
  size_t found = text.find("\"\"\"");
  if (found == std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  size_t copied = 0;
  for (; found != std::string::npos; found = text.find("\"\"\"", found)) {
    size_t i = found + 3;
    const size_t newlines = i;
    while (i < text.size() && text[i] == '\n') ++i;
    const size_t end = i > newlines ? matchDefinition(text, i) : std::string::npos;
    if (end == std::string::npos) {
      ++found;  // re.sub tries the next position
      continue;
    }
    out.append(text, copied, newlines - copied);
    out += "\n\n";
    out.append(text, i, end - i);
    copied = found = end;
  }
  out.append(text, copied, std::string::npos);
  return out;
}

// --- Output directories ----------------------------------------------------------------------

namespace {

std::string normalDirectory(const std::string& dir) {
  std::string normal = std::filesystem::path(dir).lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

}  // namespace

support::OutputSink& DiskOutputDirs::sinkFor(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& sink = sinks_[dir];
  if (!sink) {
    sink = std::make_unique<support::DirectorySink>(dir, files_);
    if (newDirectories_.count(normalDirectory(dir)) != 0) sink->assumeNewDirectory();
  }
  return *sink;
}

void DiskOutputDirs::makeDirectory(const std::string& dir) {
  if (files_.stopped()) return;  // one error is enough: it would repeat for each directory
  std::vector<std::string> created;  // `dir` and the parents that did not exist yet
  if (std::optional<std::string> problem = support::createDirectories(normalDirectory(dir), &created)) {
    diags_.error(support::SourceLoc{dir}, std::move(*problem));
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::string& d : created) {
    for (auto& [sinkDir, sink] : sinks_)
      if (normalDirectory(sinkDir) == d) sink->assumeNewDirectory();
    newDirectories_.insert(std::move(d));
  }
}

std::optional<std::string> DiskOutputDirs::readExisting(const std::string& dir, std::string_view relPath) {
  support::Diagnostics ignored;  // a file that cannot be read counts as missing
  support::InputFiles files(ignored);
  return files.read(osPathJoin(dir, relPath));
}

int DiskOutputDirs::writtenCount() const {
  int n = 0;
  for (const auto& [dir, sink] : sinks_) n += sink->writtenCount();
  return n;
}

int DiskOutputDirs::unchangedCount() const {
  int n = 0;
  for (const auto& [dir, sink] : sinks_) n += sink->unchangedCount();
  return n;
}


// --- Templates -------------------------------------------------------------------------------

const support::CodeTemplate* TemplateCache::get(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = templates_.find(path);
  if (it == templates_.end()) it = templates_.emplace(path, support::CodeTemplate::fromFile(path, inputs_)).first;
  return it->second ? &*it->second : nullptr;
}

void TemplateCache::provide(const std::string& path, std::string_view text) {
  std::lock_guard<std::mutex> lock(mutex_);
  templates_.emplace(path, support::CodeTemplate(text, path));
}

// --- FileManager -----------------------------------------------------------------------------

FileManager::FileManager(std::string installDir, std::string templateDir, bool dryRun, TemplateCache& templates,
                         OutputDirs& outputs, support::Diagnostics& diags)
    : installDir_(purePath(installDir)),
      templateDir_(std::move(templateDir)),
      dryRun_(dryRun),
      templates_(templates),
      outputs_(outputs),
      diags_(diags) {}

bool FileManager::record(std::string_view filename) {
  if (filename.empty() || filename[0] == '/') {
    diags_.error(support::SourceLoc{std::string(filename)}, "output file name must be relative");
    return false;
  }
  const std::string path = joinPurePath(installDir_, filename);
  std::lock_guard<std::mutex> lock(filesMutex_);
  if (!files_.insert(path).second) {
    diags_.error(support::SourceLoc{path}, "duplicate file write");
    return false;
  }
  return true;
}

void FileManager::store(std::string_view filename, std::string_view content) {
  outputs_.sinkFor(installDir_).write(purePath(filename), content);
}

const FileManager::NamedTemplate& FileManager::templateNamed(std::string_view templateName) {
  std::lock_guard<std::mutex> lock(namedMutex_);
  auto it = named_.find(templateName);
  if (it == named_.end()) {
    NamedTemplate t{templates_.get(joinPurePath(templateDir_, templateName)),
                    "@generated by " + std::string(kGenerator) + " from " + std::string(templateName)};
    it = named_.emplace(std::string(templateName), std::move(t)).first;
  }
  return it->second;  // std::map: stays where it is while others are added
}

std::optional<std::string> FileManager::render(std::string_view templateName, support::TemplateEnv env) {
  const std::string* text = renderToBuffer(templateName, std::move(env));
  if (text == nullptr) return std::nullopt;
  return *text;
}

namespace {

// The calling thread's buffer for files: its memory, once grown to the largest file the thread has
// written, is reused by the next ones (rather than a fresh string touching new pages each time).
std::string& threadBuffer() {
  thread_local std::string buffer = [] {
    // Reserved, not touched: pages are faulted in only as far as files reach, and large files do
    // not copy the text as the buffer grows (nor touch a block of each size on the way).
    std::string b;
    b.reserve(size_t{8} << 20);
    return b;
  }();
  return buffer;
}

}  // namespace

const std::string* FileManager::renderToBuffer(std::string_view templateName, support::TemplateEnv env) {
  std::string& buffer = threadBuffer();
  const NamedTemplate& named = templateNamed(templateName);
  if (!env.contains("generated_comment")) env.set("generated_comment", named.generatedComment);
  const support::CodeTemplate* tmpl = named.tmpl;
  if (tmpl == nullptr) return nullptr;
  buffer.clear();  // keeps its capacity
  if (!tmpl->substituteInto(buffer, env, diags_)) return nullptr;
  buffer = fixDocstringSpacing(std::move(buffer));  // without a docstring: the same string, moved back
  return &buffer;
}

bool FileManager::templateUses(std::string_view templateName, std::string_view variable) {
  const support::CodeTemplate* tmpl = templateNamed(templateName).tmpl;
  if (tmpl == nullptr) return true;  // rendering reports it
  const std::vector<std::string> names = tmpl->variables();
  return std::find(names.begin(), names.end(), variable) != names.end();
}

dest::Writer::Existing FileManager::readExisting(std::string_view filename) {
  Existing existing{osPathJoin(installDir_, filename), outputs_.readExisting(installDir_, filename)};
  if (existing.text) *existing.text = support::universalNewlines(std::move(*existing.text));
  return existing;
}

void FileManager::write(std::string_view filename, const dest::EnvFn& env) { writeWithTemplate(filename, filename, env); }

void FileManager::writeWithTemplate(std::string_view filename, std::string_view templateName, const dest::EnvFn& env) {
  if (!record(filename) || dryRun_) return;
  if (const std::string* text = renderToBuffer(templateName, env())) store(filename, *text);
}

void FileManager::writeText(std::string_view filename, const dest::TextFn& text) {
  if (!record(filename) || dryRun_) return;
  store(filename, text());
}

void FileManager::writeTextIn(std::string_view filename, const dest::TextInFn& text) {
  if (!record(filename) || dryRun_) return;
  std::string& buffer = threadBuffer();
  buffer.clear();  // keeps its capacity
  buffer = text(std::move(buffer));
  store(filename, buffer);
}

void FileManager::writeSharded(const dest::Sharded& spec, std::size_t itemCount,
                               const std::function<std::string(std::size_t)>& key,
                               const std::function<dest::ShardEnv(std::size_t)>& env) {
  // The sharded lists start as the base environment's list (which must be one) or empty.
  std::map<std::string, std::vector<std::string>> initial;
  for (const std::string& name : spec.shardedKeys) initial[name];
  for (const auto& [name, value] : spec.baseEnv) {
    if (!spec.shardedKeys.count(name)) continue;
    if (!value.isList()) {
      diags_.error(support::SourceLoc{spec.filename}, "sharded key '" + name + "' of the base environment must be a list");
      return;
    }
    initial[name] = value.items();
  }
  // Everything first, then _0 .. _N-1 (torchgen's all_shards). With one shard, _0 gets every item,
  // as Everything does: the lists are gathered once, in _0's.
  const bool oneShard = spec.numShards == 1;
  using Lists = std::map<std::string, std::vector<std::string>>;
  struct Shard {
    std::string id;
    Lists lists;
  };
  std::vector<Shard> shards;
  shards.push_back({"Everything", Lists()});  // with several shards, its lists borrow theirs
  for (int i = 0; i < spec.numShards; ++i) shards.push_back({std::string("_").append(std::to_string(i)), initial});
  // With several shards, where Everything's items are: each sharded key's items in order, as
  // (shard, index in its list) after the base environment's items.
  struct ItemRef {
    size_t shard;
    size_t index;
  };
  std::map<std::string, std::vector<ItemRef>> everythingItems;
  if (!dryRun_) {  // a dry run renders nothing, so the environments are not needed
    for (std::size_t i = 0; i < itemCount; ++i) {
      dest::ShardEnv additions = env(i);
      for (const auto& [name, items] : additions) {
        if (!spec.shardedKeys.count(name)) {
          diags_.error(support::SourceLoc{spec.filename}, "undeclared sharded key '" + name + "'");
          return;
        }
      }
      const size_t shard = 1 + (spec.numShards > 1 ? support::shardOf(key(i), spec.numShards) : 0);
      for (auto& [name, items] : additions) {
        std::vector<std::string>& list = shards[shard].lists[name];
        if (!oneShard) {
          std::vector<ItemRef>& refs = everythingItems[name];
          for (size_t k = 0; k < items.size(); ++k) refs.push_back({shard, list.size() + k});
        }
        list.insert(list.end(), std::make_move_iterator(items.begin()), std::make_move_iterator(items.end()));
      }
    }
  }
  // torchgen: {"shard_id": ID}, updated with the base environment, then the sharded lists (moved
  // out of `lists` unless copied).
  auto shardEnv = [&spec](const std::string& id, Lists& lists, bool copyLists) {
    support::TemplateEnv e;
    e.set("shard_id", id);
    for (const auto& [name, value] : spec.baseEnv)
      if (!spec.shardedKeys.count(name)) e.set(name, value);
    for (auto& [name, items] : lists) e.set(name, copyLists ? items : std::move(items));
    return e;
  };
  // Everything of several shards: the same, with lists of the base environment's items and then
  // every item, borrowed (the shards' lists are rendered after it).
  auto everythingEnv = [&] {
    support::TemplateEnv e;
    e.set("shard_id", "Everything");
    for (const auto& [name, value] : spec.baseEnv)
      if (!spec.shardedKeys.count(name)) e.set(name, value);
    for (const auto& [name, base] : initial) {
      std::vector<std::string_view> views(base.begin(), base.end());
      auto refs = everythingItems.find(name);
      if (refs != everythingItems.end()) {
        views.reserve(views.size() + refs->second.size());
        for (const ItemRef& r : refs->second) views.emplace_back(shards[r.shard].lists[name][r.index]);
      }
      e.set(name, support::TemplateValue::borrowedList(std::move(views)));
    }
    return e;
  };
  const std::string stem(pathStem(spec.filename));
  auto shardFile = [&](const std::string& id) { return pathWithStem(spec.filename, std::string(stem).append(id)); };
  // With one shard, Everything and _0 have the same environment but for shard_id: unless the template
  // uses it, _0's text is Everything's, rendered once (and still in the render buffer).
  const std::string* everythingText = nullptr;
  for (Shard& shard : shards) {
    const std::string filename = shardFile(shard.id);
    if (!record(filename) || dryRun_) continue;
    if (everythingText != nullptr) {  // _0 of one shard
      store(filename, *everythingText);
      continue;
    }
    const bool everything = &shard == &shards[0];
    if (!everything || !oneShard) {
      support::TemplateEnv e = everything ? everythingEnv() : shardEnv(shard.id, shard.lists, false);
      if (const std::string* text = renderToBuffer(spec.templateName, std::move(e))) store(filename, *text);
      continue;
    }
    // Everything of one shard, from _0's lists. When the rendering fails, _0's fails alike (whether a
    // template renders depends on the names defined, not on the lists' items).
    const bool sameText = !templateUses(spec.templateName, "shard_id");
    const std::string* text = renderToBuffer(spec.templateName, shardEnv(shard.id, shards[1].lists, !sameText));
    if (text == nullptr) continue;
    store(filename, *text);
    if (sameText) everythingText = text;
  }
  // The Everything file is not meant to be compiled: torchgen leaves it out of the outputs.
  std::lock_guard<std::mutex> lock(filesMutex_);
  files_.erase(joinPurePath(installDir_, shardFile("Everything")));
}

std::vector<std::string> FileManager::filenames() const {
  std::lock_guard<std::mutex> lock(filesMutex_);
  std::vector<std::string> out(files_.begin(), files_.end());
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return purePathLess(a, b); });
  return out;
}

std::string FileManager::outputsList(std::string_view variableName) const {
  std::string out = "set(\n";
  out += variableName;
  for (const std::string& path : filenames()) out += "\n    \"" + path + "\"";
  out += "\n)";
  return out;
}

void MemoryWriter::writeWithTemplate(std::string_view filename, std::string_view templateName,
                                     const dest::EnvFn& env) {
  if (std::optional<std::string> text = renderTemplate(templateName, env())) store(filename, std::move(*text));
}

std::optional<std::string> MemoryWriter::renderTemplate(std::string_view templateName, support::TemplateEnv env) {
  const support::CodeTemplate* tmpl = templates_.get((std::filesystem::path(templateDir_) / templateName).string());
  if (tmpl == nullptr) return std::nullopt;
  return tmpl->substitute(env, diags_);
}

void MemoryWriter::writeSharded(const dest::Sharded& spec, std::size_t, const std::function<std::string(std::size_t)>&,
                                const std::function<dest::ShardEnv(std::size_t)>&) {
  diags_.error({}, "internal error: " + spec.filename + " cannot be sharded with torchgen's rule here");
}

std::string pluginTemplateDir(const std::string& executable, std::string_view product) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (ec) exe = fs::absolute(executable, ec);
  const fs::path installed = exe.parent_path().parent_path() / "share/opgen/templates" / product;
  if (fs::is_directory(installed, ec)) return installed.string();
#ifdef OPGEN_SOURCE_TEMPLATE_DIR
  return (fs::path(OPGEN_SOURCE_TEMPLATE_DIR) / product).string();
#else
  return {};
#endif
}

bool stageDepfileAndStamp(const std::optional<std::string>& depfile, const std::optional<std::string>& stamp,
                          const std::vector<std::string>& deps, support::FileTransaction& files) {
  using Result = support::FileTransaction::Result;
  if (depfile && stamp && files.stage(*depfile, support::makeDepfile({*stamp}, deps)) == Result::Failed) return false;
  if (stamp && files.stage(*stamp, "", support::FileTransaction::Mode::Always) == Result::Failed) return false;
  return true;
}

}  // namespace opgen::gen
