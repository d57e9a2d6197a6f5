#include "support/Sharding.h"

#include <sha1.h>  // libmd

#include <algorithm>
#include <cstdint>
#include <cstring>
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

// The SHA-1 digest of `bytes`. libmd's SHA1Final pads the message one byte per SHA1Update call
// (4000 instructions for a short key); the padding (0x80, zeros, the length in bits as a big-endian
// 64-bit number, to a multiple of 64 bytes) is written here and the blocks go to SHA1Transform.
void sha1(std::string_view bytes, uint8_t (&digest)[SHA1_DIGEST_LENGTH]) {
  SHA1_CTX ctx;
  SHA1Init(&ctx);
  size_t whole = bytes.size() - bytes.size() % SHA1_BLOCK_LENGTH;
  for (size_t at = 0; at < whole; at += SHA1_BLOCK_LENGTH)
    SHA1Transform(ctx.state, reinterpret_cast<const uint8_t*>(bytes.data() + at));
  uint8_t tail[2 * SHA1_BLOCK_LENGTH] = {};
  const size_t rest = bytes.size() - whole;
  std::memcpy(tail, bytes.data() + whole, rest);
  tail[rest] = 0x80;
  const size_t tailSize = rest + 1 + 8 <= SHA1_BLOCK_LENGTH ? SHA1_BLOCK_LENGTH : 2 * SHA1_BLOCK_LENGTH;
  const uint64_t bits = static_cast<uint64_t>(bytes.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tailSize - 1 - i] = static_cast<uint8_t>(bits >> (8 * i));
  for (size_t at = 0; at < tailSize; at += SHA1_BLOCK_LENGTH) SHA1Transform(ctx.state, tail + at);
  for (int w = 0; w < 5; ++w)
    for (int b = 0; b < 4; ++b) digest[4 * w + b] = static_cast<uint8_t>(ctx.state[w] >> (24 - 8 * b));
}

}  // namespace

int shardOf(std::string_view key, int numShards) {
  if (numShards <= 1) return 0;  // every remainder of a division by 1 is 0: no digest needed
  const bool ascii = std::all_of(key.begin(), key.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  std::optional<std::string> latin1 = ascii ? std::nullopt : toLatin1(key);
  const std::string_view bytes = latin1 ? std::string_view(*latin1) : key;

  uint8_t digest[SHA1_DIGEST_LENGTH];
  sha1(bytes, digest);

  // The digest is a little-endian number: fold from its most significant byte, the last one.
  uint64_t remainder = 0;
  for (size_t i = SHA1_DIGEST_LENGTH; i-- > 0;) remainder = (remainder * 256 + digest[i]) % static_cast<uint64_t>(numShards);
  return static_cast<int>(remainder);
}

}  // namespace opgen::support
