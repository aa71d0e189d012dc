// SPDX-License-Identifier: Apache-2.0
// Decoding of a Kubernetes watch stream (pure). The server sends one JSON object per event,
// {"type": "...", "object": {...}}, newline-separated; the transport delivers it in chunks that may
// split an event, or a multi-byte UTF-8 character, anywhere.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"
#include "kube/api_client.h"

namespace ingot::k8s {

/// parseWatchEvent decodes one framed event object. Errors name what is wrong (not an object,
/// missing or unknown type, missing object).
Result<WatchEvent> parseWatchEvent(std::string_view frame);

/// parseListPage decodes a list response body: metadata.resourceVersion, metadata.continue and
/// the raw text of each element of items. Errors say which part is malformed.
Result<ListPage> parseListPage(std::string_view body);

/// WatchDecoder frames and decodes a watch stream incrementally. Framing follows JSON structure
/// (string-aware brace depth), so newlines are optional and the work per byte is constant no matter
/// how the stream is chunked.
class WatchDecoder {
 public:
  static constexpr size_t kDefaultMaxEventBytes = 16u << 20;

  /// max_event_bytes caps the size of a single event; a longer one is an error (a server bug or
  /// a hostile peer must not grow the buffer without bound).
  explicit WatchDecoder(size_t max_event_bytes = kDefaultMaxEventBytes);

  /// feed consumes the next chunk and returns the events it completed, in stream order. After an
  /// error the decoder is poisoned and every later call returns the same error.
  Result<std::vector<WatchEvent>> feed(std::string_view chunk);

  /// finish reports whether the stream ended cleanly: an error if it stopped inside an event or
  /// the decoder is poisoned.
  Result<void> finish() const;

  /// buffered returns the bytes held for an incomplete event.
  size_t buffered() const { return buf_.size(); }

 private:
  Result<void> scan(std::vector<WatchEvent>& out);
  Result<void> emitFrame(size_t begin, size_t end, std::vector<WatchEvent>& out);

  size_t max_event_bytes_;
  std::string buf_;
  size_t scanned_ = 0;  ///< bytes of buf_ already framed
  int depth_ = 0;       ///< brace/bracket depth inside the current event; 0 = between events
  bool in_string_ = false;
  bool escape_ = false;
  std::string error_;  ///< non-empty once poisoned
};

}  // namespace ingot::k8s
