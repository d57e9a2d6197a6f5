#include "support/Sharding.h"

#include <sha1.h>  // libmd

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace opgen::support {

namespace {

// `utf8` re-encoded as Latin-1, or nullopt when it has a character above U+00FF or is not UTF-8.
std::optional<std::string> toLatin1(std::string_view utf8) {
  std::string out;
  out.reserve(utf8.size());
  for (size_t i = 0; i < utf8.size(); ++i) {
    const auto lead = static_cast<unsigned char>(utf8[i]);
    if (lead < 0x80) {
      out += static_cast<char>(lead);
      continue;
    }
    const bool twoByteLatin1 = (lead == 0xC2 || lead == 0xC3) && i + 1 < utf8.size() &&
                               (static_cast<unsigned char>(utf8[i + 1]) & 0xC0) == 0x80;
    if (!twoByteLatin1) return std::nullopt;
    out += static_cast<char>(((lead & 0x1F) << 6) | (static_cast<unsigned char>(utf8[i + 1]) & 0x3F));
    ++i;
  }
  return out;
}

}  // namespace

int shardOf(std::string_view key, int numShards) {
  if (numShards <= 1) return 0;  // every remainder of a division by 1 is 0: no digest needed
  const bool ascii = std::all_of(key.begin(), key.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  std::optional<std::string> latin1 = ascii ? std::nullopt : toLatin1(key);
  const std::string_view bytes = latin1 ? std::string_view(*latin1) : key;

  SHA1_CTX ctx;
  SHA1Init(&ctx);
  SHA1Update(&ctx, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  uint8_t digest[SHA1_DIGEST_LENGTH];
  SHA1Final(digest, &ctx);

  // The digest is a little-endian number: fold from its most significant byte, the last one.
  uint64_t remainder = 0;
  for (size_t i = SHA1_DIGEST_LENGTH; i-- > 0;) remainder = (remainder * 256 + digest[i]) % static_cast<uint64_t>(numShards);
  return static_cast<int>(remainder);
}

}  // namespace opgen::support
