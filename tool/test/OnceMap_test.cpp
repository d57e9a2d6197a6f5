// OnceMap: one value per key, made once even when threads ask for it at the same time.
#include "support/OnceMap.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace opgen::support {
namespace {

struct Counted {
  Counted(std::atomic<int>& made, int key) : text("value " + std::to_string(key)) { ++made; }
  Counted(const Counted&) = delete;  // made in place
  std::string text;
};

TEST(OnceMap, MakesEachValueOnceAndKeepsItInPlace) {
  OnceMap<int, Counted> map;
  std::atomic<int> made{0};
  const Counted& first = map.get(1, made, 1);
  EXPECT_EQ(first.text, "value 1");
  EXPECT_EQ(&map.get(1, made, 1), &first);
  for (int k = 2; k < 200; ++k) map.get(k, made, k);  // rehashing moves no value
  EXPECT_EQ(&map.get(1, made, 1), &first);
  EXPECT_EQ(made.load(), 199);
}

TEST(OnceMap, ThreadsAskingTogetherGetTheSameValue) {
  OnceMap<int, Counted> map;
  std::atomic<int> made{0};
  std::vector<const Counted*> seen(4 * 100);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < 100; ++k) seen[t * 100 + k] = &map.get(k, made, k);
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(made.load(), 100);
  for (int t = 1; t < 4; ++t)
    for (int k = 0; k < 100; ++k) EXPECT_EQ(seen[t * 100 + k], seen[k]);
}

}  // namespace
}  // namespace opgen::support
