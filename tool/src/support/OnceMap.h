// OnceMap: values made once per key, on first use, by the thread that asks first; OnceValue: one
// such value, made under a lock its owner shares between several values.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace opgen::support {

// A cache shared by threads: get(key, args...) returns the value for `key`, constructing it from
// `args` the first time. A thread asking for a key that another is making waits for it; others go
// on. References stay valid as long as the map (nodes never move).
//
// Not std::call_once: glibc's pthread_once wakes waiters with a system call on every completion.
template <class Key, class Value, class Hash = std::hash<Key>>
class OnceMap {
 public:
  template <class... Args>
  const Value& get(const Key& key, Args&&... args) {
    Slot* slot;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      slot = &slots_[key];
    }
    if (!slot->made.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(slot->making);
      if (!slot->made.load(std::memory_order_relaxed)) {
        slot->value.emplace(std::forward<Args>(args)...);
        slot->made.store(true, std::memory_order_release);
      }
    }
    return *slot->value;
  }

 private:
  struct Slot {
    std::atomic<bool> made{false};  // set (release) once `value` holds the value
    std::mutex making;              // held by the thread making the value
    std::optional<Value> value;
  };
  std::mutex mutex_;
  std::unordered_map<Key, Slot, Hash> slots_;
};

// A value made once, on first use, under `lock` (a lock of the object that owns several values; a
// recursive one, so that making a value may ask for another). Once made, reading it takes no lock.
template <class Value>
class OnceValue {
 public:
  template <class Make>
  const Value& get(std::recursive_mutex& lock, Make make) {
    if (!made_.load(std::memory_order_acquire)) {
      std::lock_guard<std::recursive_mutex> guard(lock);
      if (!made_.load(std::memory_order_relaxed)) {
        value_.emplace(make());
        made_.store(true, std::memory_order_release);
      }
    }
    return *value_;
  }

 private:
  std::atomic<bool> made_{false};
  std::optional<Value> value_;
};

}  // namespace opgen::support
