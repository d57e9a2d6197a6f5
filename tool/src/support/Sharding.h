// torchgen's rule for splitting generated code into shards (FileManager.write_sharded).
#pragma once

#include <string_view>

namespace opgen::support {

// The shard that torchgen gives `key`: string_stable_hash(key) % numShards, where the hash is the
// SHA-1 digest of key.encode("latin1") read as a little-endian 160-bit integer. `key` is UTF-8;
// when it holds a character above U+00FF (which Python cannot encode) or is not valid UTF-8, its
// bytes are hashed as they are. Returns 0 when numShards < 1.
int shardOf(std::string_view key, int numShards);

}  // namespace opgen::support
