// SPDX-License-Identifier: Apache-2.0
#include "agent/memberlist/core/lzw.h"

#include <array>
#include <map>

namespace ingot::agent::memberlist {

namespace {

constexpr uint32_t kClear = 256;
constexpr uint32_t kEof = 257;
constexpr uint32_t kMaxWidth = 12;
constexpr uint32_t kTableSize = 1U << kMaxWidth;
constexpr uint32_t kInvalid = 0xffff;

// Decoder mirrors the code-table bookkeeping of Go's compress/lzw reader.
struct Decoder {
  std::array<uint8_t, kTableSize> suffix{};
  std::array<uint16_t, kTableSize> prefix{};
  uint32_t width = 9;
  uint32_t hi = kEof;
  uint32_t overflow = 512;
  uint32_t last = kInvalid;
  std::vector<uint8_t> scratch;

  // expand appends the bytes of `code` to out; `code == hi` is the KwKwK case.
  void expand(uint32_t code, std::vector<uint8_t>& out) {
    scratch.clear();
    uint32_t c = code;
    if (code == hi && last != kInvalid) {
      uint32_t head = last;
      while (head >= kClear) {
        head = prefix[head];
      }
      scratch.push_back(static_cast<uint8_t>(head));
      c = last;
    }
    while (c >= kClear) {
      scratch.push_back(suffix[c]);
      c = prefix[c];
    }
    scratch.push_back(static_cast<uint8_t>(c));
    out.insert(out.end(), scratch.rbegin(), scratch.rend());
    if (last != kInvalid) {
      suffix[hi] = static_cast<uint8_t>(c);
      prefix[hi] = static_cast<uint16_t>(last);
    }
  }

  void advance(uint32_t code) {
    last = code;
    ++hi;
    if (hi >= overflow) {
      if (width == kMaxWidth) {
        last = kInvalid;
        --hi;
      } else {
        ++width;
        overflow = 1U << width;
      }
    }
  }
};

}  // namespace

Result<std::vector<uint8_t>> lzwDecompress(std::span<const uint8_t> in, size_t max_output) {
  Decoder d;
  std::vector<uint8_t> out;
  uint32_t bits = 0;
  uint32_t nbits = 0;
  size_t pos = 0;
  for (;;) {
    while (nbits < d.width) {
      if (pos >= in.size()) {
        return invalidArgument("lzw: input ends before the end code");
      }
      bits |= uint32_t{in[pos++]} << nbits;
      nbits += 8;
    }
    const uint32_t code = bits & ((1U << d.width) - 1);
    bits >>= d.width;
    nbits -= d.width;
    if (code == kEof) {
      return out;
    }
    if (code == kClear) {
      d.width = 9;
      d.hi = kEof;
      d.overflow = 512;
      d.last = kInvalid;
      continue;
    }
    if (code > d.hi || (code == d.hi && d.last == kInvalid)) {
      return invalidArgument("lzw: invalid code");
    }
    d.expand(code, out);
    if (out.size() > max_output) {
      return invalidArgument("lzw: output over the size limit");
    }
    d.advance(code);
  }
}

// Encoder follows Go's compress/lzw writer (clear code first, reset at code 4095), so the
// decoder's width changes line up.
struct Encoder {
  std::vector<uint8_t> out;
  std::map<uint32_t, uint32_t> table;
  uint32_t bits = 0;
  uint32_t nbits = 0;
  uint32_t width = 9;
  uint32_t hi = kEof;
  uint32_t overflow = 512;

  void emit(uint32_t code) {
    bits |= code << nbits;
    nbits += width;
    while (nbits >= 8) {
      out.push_back(static_cast<uint8_t>(bits));
      bits >>= 8;
      nbits -= 8;
    }
  }
  // incHi returns false when the table was reset.
  bool incHi() {
    if (++hi == overflow) {
      ++width;
      overflow <<= 1;
    }
    if (hi == kTableSize - 1) {
      emit(kClear);
      width = 9;
      hi = kEof;
      overflow = 512;
      table.clear();
      return false;
    }
    return true;
  }
};

std::vector<uint8_t> lzwCompress(std::span<const uint8_t> in) {
  Encoder e;
  e.emit(kClear);  // Go's writer starts every stream with a clear code
  uint32_t saved = kInvalid;
  for (uint8_t x : in) {
    if (saved == kInvalid) {
      saved = x;
      continue;
    }
    const uint32_t key = (saved << 8) | x;
    if (auto it = e.table.find(key); it != e.table.end()) {
      saved = it->second;
      continue;
    }
    e.emit(saved);
    saved = x;
    if (e.incHi()) {
      e.table[key] = e.hi;
    }
  }
  if (saved != kInvalid) {
    e.emit(saved);
    e.incHi();
  }
  e.emit(kEof);
  if (e.nbits > 0) {
    e.out.push_back(static_cast<uint8_t>(e.bits));
  }
  return e.out;
}

}  // namespace ingot::agent::memberlist
