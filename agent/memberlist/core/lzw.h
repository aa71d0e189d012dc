// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/util/result.h"

namespace ingot::agent::memberlist {

/// lzwDecompress expands Go's compress/lzw output (LSB bit order, 8-bit literals: what
/// memberlist's EnableCompression sends). Fails on invalid codes, a missing end code, or
/// output beyond `max_output` bytes (a decompression bomb).
Result<std::vector<uint8_t>> lzwDecompress(std::span<const uint8_t> in, size_t max_output);

/// lzwCompress is the matching encoder (used by tests; Ingot sends uncompressed, which every
/// memberlist version accepts).
std::vector<uint8_t> lzwCompress(std::span<const uint8_t> in);

}  // namespace ingot::agent::memberlist
