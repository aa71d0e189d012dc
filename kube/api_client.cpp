// SPDX-License-Identifier: Apache-2.0
#include "kube/api_client.h"

namespace ingot::k8s {
namespace {

/// appendSegment appends one path segment, percent-encoding everything but RFC 3986 unreserved
/// characters, so that a name can never change the shape of the path.
void appendSegment(std::string& path, std::string_view segment) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  path += '/';
  for (char c : segment) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      path += c;
    } else {
      path += '%';
      path += kHex[u >> 4];
      path += kHex[u & 0xF];
    }
  }
}

}  // namespace

std::string resourcePath(const ResourceRef& ref,
                         std::string_view ns,
                         std::string_view name,
                         std::string_view subresource) {
  std::string path =
      ref.group.empty() ? "/api/" + ref.version : "/apis/" + ref.group + "/" + ref.version;
  if (ref.namespaced && !ns.empty()) {
    path += "/namespaces";
    appendSegment(path, ns);
  }
  appendSegment(path, ref.plural);
  if (!name.empty()) {
    appendSegment(path, name);
    if (!subresource.empty()) appendSegment(path, subresource);
  }
  return path;
}

std::string objectKey(std::string_view ns, std::string_view name) {
  if (ns.empty()) return std::string(name);
  std::string key(ns);
  key += '/';
  key += name;
  return key;
}

std::string_view watchEventTypeName(WatchEventType t) {
  switch (t) {
    case WatchEventType::Added:
      return "ADDED";
    case WatchEventType::Modified:
      return "MODIFIED";
    case WatchEventType::Deleted:
      return "DELETED";
    case WatchEventType::Bookmark:
      return "BOOKMARK";
    case WatchEventType::Error:
      return "ERROR";
  }
  return "UNKNOWN";
}

}  // namespace ingot::k8s
