// The tests' OutputDirs: every output directory is a MemorySink, and no file exists before the run.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "gen/FileManager.h"
#include "support/OutputSink.h"

namespace opgen::test {

class MemoryOutputDirs final : public gen::OutputDirs {
 public:
  explicit MemoryOutputDirs(support::Diagnostics& diags) : diags_(diags) {}

  support::OutputSink& sinkFor(const std::string& dir) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& sink = sinks_[dir];
    if (!sink) sink = std::make_unique<support::MemorySink>(diags_);
    return *sink;
  }
  void makeDirectory(const std::string& dir) override {
    std::lock_guard<std::mutex> lock(mutex_);
    directories_.insert(dir);
  }
  std::optional<std::string> readExisting(const std::string&, std::string_view) override { return std::nullopt; }

  // Directory -> its sink.
  const std::map<std::string, std::unique_ptr<support::MemorySink>>& sinks() const { return sinks_; }
  // The content written at DIR/NAME (paths as spelled by joinPurePath()), or nullptr.
  const std::string* find(std::string_view dir, std::string_view name) const {
    auto it = sinks_.find(std::string(dir));
    return it == sinks_.end() ? nullptr : it->second->find(name);
  }
  const std::set<std::string>& directories() const { return directories_; }

 private:
  support::Diagnostics& diags_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<support::MemorySink>> sinks_;
  std::set<std::string> directories_;
};

}  // namespace opgen::test
