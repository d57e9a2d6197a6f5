// shardOf: torchgen's string_stable_hash(key) % num_shards. Expected values computed with
//   int.from_bytes(hashlib.sha1(key.encode("latin1")).digest(), "little") % n
#include "support/Sharding.h"

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace opgen::support {
namespace {

constexpr std::array<int, 8> kShardCounts = {1, 2, 3, 4, 5, 7, 1000, 2147483647};

struct Expected {
  std::string key;
  std::array<int, 8> shards;  // for kShardCounts
};

void expectShards(const Expected& e) {
  for (size_t i = 0; i < kShardCounts.size(); ++i) {
    EXPECT_EQ(shardOf(e.key, kShardCounts[i]), e.shards[i]) << "key '" << e.key << "', " << kShardCounts[i] << " shards";
  }
}

TEST(Sharding, MatchesTorchgenForAsciiKeys) {
  expectShards({"add.Tensor", {0, 1, 0, 1, 1, 1, 881, 1964732472}});
  expectShards({"", {0, 0, 1, 2, 0, 0, 770, 1501033737}});
  expectShards({"aten::conv2d", {0, 0, 2, 2, 2, 3, 962, 1283496694}});
  expectShards({"abs", {0, 0, 1, 2, 1, 6, 386, 2109087343}});
  expectShards({"convolution_backward", {0, 0, 0, 2, 4, 0, 734, 1281289974}});
  expectShards({"native_batch_norm.out", {0, 1, 1, 3, 4, 3, 459, 27622022}});
}

TEST(Sharding, MatchesTorchgenAcrossBlockBoundaries) {
  // SHA-1 pads to 64-byte blocks and needs a second one for the length from 56 bytes on.
  auto key = [](size_t length) {
    std::string k;
    while (k.size() < length) k += "abcdefghij";
    return k.substr(0, length);
  };
  expectShards({key(55), {0, 0, 2, 2, 2, 1, 502, 748781799}});
  expectShards({key(56), {0, 1, 2, 1, 3, 6, 693, 755538106}});
  expectShards({key(63), {0, 0, 2, 2, 4, 0, 554, 1866489895}});
  expectShards({key(64), {0, 1, 2, 3, 4, 3, 939, 1339625535}});
  expectShards({key(65), {0, 0, 0, 2, 0, 1, 310, 2061297448}});
  expectShards({key(119), {0, 1, 2, 3, 2, 2, 927, 1146113366}});
  expectShards({key(120), {0, 1, 2, 3, 2, 5, 47, 1392037630}});
  expectShards({key(128), {0, 0, 0, 0, 0, 3, 540, 666770561}});
  expectShards({key(200), {0, 0, 2, 0, 3, 0, 628, 1327954624}});
}

TEST(Sharding, HashesLatin1LikePython) {
  // Python encodes the key as Latin-1: "café" is hashed as the four bytes 63 61 66 E9.
  expectShards({"caf\u00e9", {0, 0, 2, 2, 4, 5, 794, 2000441738}});
  expectShards({"\u00ff", {0, 1, 0, 1, 3, 3, 333, 638894874}});
}

TEST(Sharding, ResultIsInRange) {
  for (int n = 1; n <= 64; ++n) {
    int s = shardOf("aten::some_operator." + std::to_string(n), n);
    EXPECT_GE(s, 0);
    EXPECT_LT(s, n);
  }
}

TEST(Sharding, NonPositiveShardCountGivesZero) {
  EXPECT_EQ(shardOf("add.Tensor", 0), 0);
  EXPECT_EQ(shardOf("add.Tensor", -3), 0);
}

TEST(Sharding, NonLatin1KeyIsHashedAsBytes) {
  // Python cannot encode U+20AC as Latin-1; its UTF-8 bytes E2 82 AC are hashed as they are, which
  // is what Python gives for "\u00e2\u0082\u00ac" (those three bytes in Latin-1).
  EXPECT_EQ(shardOf("\u20ac", 2147483647), 1738478839);
  EXPECT_EQ(shardOf("\u00e2\u0082\u00ac", 2147483647), 1738478839);
  EXPECT_EQ(shardOf("\xff\xfe", 2147483647), 321538251);  // not UTF-8: the bytes as they are
}

}  // namespace
}  // namespace opgen::support
