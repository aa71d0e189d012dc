// SPDX-License-Identifier: Apache-2.0
#include "kube/watch_decoder.h"

#include "kube/json_lite.h"

namespace ingot::k8s {
namespace {

bool isWs(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

Result<WatchEventType> parseType(std::string_view name) {
  static constexpr WatchEventType kAll[] = {WatchEventType::Added, WatchEventType::Modified,
                                            WatchEventType::Deleted, WatchEventType::Bookmark,
                                            WatchEventType::Error};
  for (WatchEventType t : kAll) {
    if (watchEventTypeName(t) == name) return t;
  }
  return invalidArgument("watch event: unknown type \"" + std::string(name) + "\"");
}

}  // namespace

Result<WatchEvent> parseWatchEvent(std::string_view frame) {
  auto m = json::members(frame, {"type", "object"});
  if (!m) return invalidArgument("watch event: " + m.error().message);
  if (!(*m)[0]) return invalidArgument("watch event: missing \"type\"");
  auto name = json::stringValue(*(*m)[0]);
  if (!name) return invalidArgument("watch event: \"type\" is not a string");
  auto type = parseType(*name);
  if (!type) return type.error();
  const auto& object = (*m)[1];
  if (!object || object->empty() || object->front() != '{') {
    return invalidArgument("watch event " + *name + ": missing or non-object \"object\"");
  }
  return WatchEvent{*type, std::string(*object)};
}

Result<ListPage> parseListPage(std::string_view body) {
  auto m = json::members(body, {"metadata", "items"});
  if (!m) return invalidArgument("malformed list: " + m.error().message);
  ListPage page;
  if ((*m)[0]) {
    auto rv = json::stringAt(*(*m)[0], {"resourceVersion"});
    auto cont = json::stringAt(*(*m)[0], {"continue"});
    if (!rv || !cont) return invalidArgument("malformed list metadata");
    page.resource_version = std::move(*rv);
    page.continue_token = std::move(*cont);
  }
  if ((*m)[1] && *(*m)[1] != "null") {
    auto items = json::elements(*(*m)[1]);
    if (!items) return invalidArgument("malformed items: " + items.error().message);
    page.items.reserve(items->size());
    for (std::string_view item : *items) page.items.emplace_back(item);
  }
  return page;
}

WatchDecoder::WatchDecoder(size_t max_event_bytes) : max_event_bytes_(max_event_bytes) {}

Result<std::vector<WatchEvent>> WatchDecoder::feed(std::string_view chunk) {
  if (!error_.empty()) return invalidArgument(error_);
  buf_.append(chunk);
  std::vector<WatchEvent> out;
  if (auto r = scan(out); !r) {
    error_ = r.error().message;
    buf_.clear();
    return r.error();
  }
  return out;
}

Result<void> WatchDecoder::finish() const {
  if (!error_.empty()) return invalidArgument(error_);
  if (!buf_.empty()) {
    return invalidArgument("watch stream ended inside an event (" + std::to_string(buf_.size()) +
                           " bytes pending)");
  }
  return {};
}

Result<void> WatchDecoder::scan(std::vector<WatchEvent>& out) {
  size_t frame_start = 0;  // meaningful while depth_ > 0; buf_ always starts with the open event
  for (size_t i = scanned_; i < buf_.size(); ++i) {
    const char c = buf_[i];
    if (depth_ == 0) {
      if (isWs(c)) continue;
      if (c != '{') return invalidArgument("watch stream: expected '{' between events");
      frame_start = i;
      depth_ = 1;
      continue;
    }
    if (in_string_) {
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        in_string_ = false;
      }
      continue;
    }
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if ((c == '}' || c == ']') && --depth_ == 0) {
      if (auto r = emitFrame(frame_start, i + 1, out); !r) return r;
    }
  }
  if (depth_ == 0) {
    buf_.clear();  // every complete event was emitted; only separators were left
  } else {
    buf_.erase(0, frame_start);
  }
  if (buf_.size() > max_event_bytes_) {
    return invalidArgument("watch event exceeds " + std::to_string(max_event_bytes_) + " bytes");
  }
  scanned_ = buf_.size();
  return {};
}

Result<void> WatchDecoder::emitFrame(size_t begin, size_t end, std::vector<WatchEvent>& out) {
  if (end - begin > max_event_bytes_) {
    return invalidArgument("watch event exceeds " + std::to_string(max_event_bytes_) + " bytes");
  }
  auto event = parseWatchEvent(std::string_view(buf_).substr(begin, end - begin));
  if (!event) return event.error();
  out.push_back(std::move(*event));
  return {};
}

}  // namespace ingot::k8s
