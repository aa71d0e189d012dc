// SPDX-License-Identifier: Apache-2.0
// UTF-8 decoding with Go's rules (unicode/utf8): what the quoting functions in quote.h build on.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ingot::utf8 {

/// kRuneError is U+FFFD, the replacement character.
inline constexpr char32_t kRuneError = 0xFFFD;

/// Rune is one decoded code point and the number of bytes it took.
struct Rune {
  char32_t value = kRuneError;
  std::size_t size = 0;
};

/// decodeRune decodes the code point starting at s[at] like Go's utf8.DecodeRuneInString: an
/// invalid, overlong, surrogate or truncated sequence yields {kRuneError, 1}; at the end of s it
/// yields {kRuneError, 0}.
Rune decodeRune(std::string_view s, std::size_t at);

/// isPrint reports whether Go's strconv.IsPrint accepts r: letters, marks, numbers, punctuation,
/// symbols and the ASCII space (generated table, unicode_print.cpp).
bool isPrint(char32_t r);

/// appendRune appends the UTF-8 encoding of r (a valid code point) to out.
void appendRune(std::string& out, char32_t r);

/// valid reports whether s is entirely valid UTF-8.
bool valid(std::string_view s);

/// sanitize returns s with every byte that does not start a valid sequence replaced by U+FFFD,
/// as Go's encoding/json does when it writes a string.
std::string sanitize(std::string_view s);

}  // namespace ingot::utf8
