// SPDX-License-Identifier: Apache-2.0
#include "kube/watch_decoder.h"

#include "common/json/scan.h"

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
  auto m = json::scan(frame, {{"type"}, {"object"}});
  if (!m) return invalidArgument("watch event: " + m.error().message);
  const json::Found& type_field = (*m)[0];
  const json::Found& object = (*m)[1];
  if (!type_field.present) return invalidArgument("watch event: missing \"type\"");
  if (type_field.type != json::Type::String) {
    return invalidArgument("watch event: \"type\" is not a string");
  }
  auto type = parseType(type_field.text);
  if (!type) return type.error();
  if (!object.present || object.type != json::Type::Object) {
    return invalidArgument("watch event " + type_field.text + ": missing or non-object \"object\"");
  }
  return WatchEvent{*type, std::string(object.raw)};
}

Result<ListPage> parseListPage(std::string_view body) {
  auto m = json::scan(body, {{"metadata", "resourceVersion"}, {"metadata", "continue"}, {"items"}});
  if (!m) return invalidArgument("malformed list: " + m.error().message);
  const json::Found& rv = (*m)[0];
  const json::Found& cont = (*m)[1];
  const json::Found& items = (*m)[2];
  const auto string_or_null = [](const json::Found& f) {
    return !f.present || f.type == json::Type::String || f.type == json::Type::Null;
  };
  if (!string_or_null(rv) || !string_or_null(cont)) {
    return invalidArgument("malformed list metadata");
  }
  if (items.present && items.type != json::Type::Array && items.type != json::Type::Null) {
    return invalidArgument("malformed items: not an array");
  }
  ListPage page;
  page.resource_version = rv.text;
  page.continue_token = cont.text;
  page.items.reserve(items.items.size());
  for (std::string_view item : items.items) page.items.emplace_back(item);
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
