// SPDX-License-Identifier: Apache-2.0
// The narrow Kubernetes API the rest of Ingot talks to. Objects cross this boundary as JSON text;
// the caller decodes them with its codec (api/codec.h). The production implementation is the
// cpprestsdk client (kube/rest_client.h); tests use a hand-written fake.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"

namespace ingot::k8s {

/// ResourceRef names a resource type by group/version/plural, e.g. {"", "v1", "services", true}
/// or {"metallb.io", "v1beta1", "ipaddresspools", true}. group "" is the core API (/api/v1).
struct ResourceRef {
  std::string group;
  std::string version;
  std::string plural;
  bool namespaced = true;
  friend bool operator==(const ResourceRef&, const ResourceRef&) = default;
};

/// resourcePath returns the URL path of a collection (name empty) or an object, optionally with a
/// subresource ("status"). ns is ignored for cluster-scoped resources; an empty ns on a namespaced
/// resource addresses all namespaces (valid for list and watch only). Segments are
/// percent-encoded, so a malformed name cannot address another path.
std::string resourcePath(const ResourceRef& ref,
                         std::string_view ns,
                         std::string_view name = {},
                         std::string_view subresource = {});

/// objectKey returns the cache key of an object: "ns/name", or "name" when ns is empty
/// (cluster-scoped), like client-go's MetaNamespaceKeyFunc.
std::string objectKey(std::string_view ns, std::string_view name);

/// ListOptions are the query parameters of a list call.
struct ListOptions {
  std::string label_selector;    ///< e.g. "app=x,tier!=db"
  std::string field_selector;    ///< e.g. "metadata.name=foo"
  std::int64_t limit = 0;        ///< page size; 0 = unpaged
  std::string continue_token;    ///< from the previous page
  std::string resource_version;  ///< "" = most recent (quorum read)
};

/// ListPage is one page of a list: the raw items, the list's resourceVersion (the point a watch
/// resumes from) and the continue token ("" on the last page).
struct ListPage {
  std::vector<std::string> items;
  std::string resource_version;
  std::string continue_token;
};

/// WatchEventType is the "type" of a watch event.
enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

/// watchEventTypeName returns the wire name ("ADDED", ...).
std::string_view watchEventTypeName(WatchEventType t);

/// WatchEvent is one decoded watch event: its type and the raw JSON of its object (a Status for
/// Error events; an object carrying only metadata.resourceVersion for bookmarks).
struct WatchEvent {
  WatchEventType type = WatchEventType::Added;
  std::string object;
  friend bool operator==(const WatchEvent&, const WatchEvent&) = default;
};

/// WatchOptions are the query parameters of a watch call.
struct WatchOptions {
  std::string resource_version;  ///< resume point: events after this version are delivered
  std::string label_selector;
  std::string field_selector;
  bool allow_bookmarks = true;
  std::int64_t timeout_seconds = 0;  ///< server-side watch duration; 0 = server default
};

/// WatchEnd says how a watch ended.
enum class WatchEnd {
  Closed,     ///< the server ended the stream normally (timeout); resume from the last version
  Gone,       ///< 410: the resume version is too old; relist
  Cancelled,  ///< the stop token fired or the handler returned false
  Failed,     ///< connection, HTTP or decoding error (see error); retry with backoff
};

/// WatchOutcome is the result of a watch call; error is set only for Failed (and carries the
/// server's message for Gone).
struct WatchOutcome {
  WatchEnd end = WatchEnd::Closed;
  Error error;
};

/// WatchHandler receives each event in order. Returning false stops the watch (Cancelled).
using WatchHandler = std::function<bool(const WatchEvent&)>;

/// PatchType selects the patch format (Content-Type).
enum class PatchType {
  Merge,  ///< application/merge-patch+json (RFC 7386)
  Json,   ///< application/json-patch+json (RFC 6902)
};

/// ApiClient is the Kubernetes API as Ingot uses it. Every call is synchronous and thread-safe;
/// failures are Results whose Error code follows the HTTP status (404 NotFound, 409 Conflict or
/// AlreadyExists, 410 Gone, 401 Unauthorized, 403 Forbidden, 400/422 InvalidArgument, 429/5xx and
/// connection failures Unavailable) and whose message carries the operation and the server's
/// Status message. Bodies are JSON text; results are the server's JSON for the object.
class ApiClient {
 public:
  virtual ~ApiClient() = default;

  /// get reads one object.
  virtual Result<std::string> get(const ResourceRef& ref,
                                  std::string_view ns,
                                  std::string_view name) = 0;

  /// list reads one page of a collection (all namespaces when ns is empty).
  virtual Result<ListPage> list(const ResourceRef& ref,
                                std::string_view ns,
                                const ListOptions& options) = 0;

  /// watch streams events to handler until the server closes the stream, the version expires,
  /// an error occurs, or stop is requested. It blocks the calling thread. An ERROR event ends the
  /// watch (Gone for a 410 Status, Failed otherwise) and is not passed to the handler; BOOKMARK
  /// events are (they carry the resourceVersion to resume from).
  virtual WatchOutcome watch(const ResourceRef& ref,
                             std::string_view ns,
                             const WatchOptions& options,
                             const WatchHandler& handler,
                             std::stop_token stop) = 0;

  /// create POSTs a new object (name or generateName in body); returns the stored object.
  virtual Result<std::string> create(const ResourceRef& ref,
                                     std::string_view ns,
                                     std::string_view body) = 0;

  /// update PUTs the whole object; a stale metadata.resourceVersion yields Conflict.
  virtual Result<std::string> update(const ResourceRef& ref,
                                     std::string_view ns,
                                     std::string_view name,
                                     std::string_view body) = 0;

  /// patch applies a merge or JSON patch to the object (not its status).
  virtual Result<std::string> patch(const ResourceRef& ref,
                                    std::string_view ns,
                                    std::string_view name,
                                    PatchType type,
                                    std::string_view body) = 0;

  /// updateStatus PUTs the object to its status subresource (only .status is applied).
  virtual Result<std::string> updateStatus(const ResourceRef& ref,
                                           std::string_view ns,
                                           std::string_view name,
                                           std::string_view body) = 0;

  /// patchStatus patches the status subresource.
  virtual Result<std::string> patchStatus(const ResourceRef& ref,
                                          std::string_view ns,
                                          std::string_view name,
                                          PatchType type,
                                          std::string_view body) = 0;

  /// remove DELETEs the object ("delete" is a keyword). NotFound when it does not exist.
  virtual Result<void> remove(const ResourceRef& ref,
                              std::string_view ns,
                              std::string_view name) = 0;

  /// getPath GETs any path of the API server (e.g. a pod's proxy subresource
  /// "/api/v1/namespaces/NS/pods/NAME:PORT/proxy/metrics") and returns the body as text. The
  /// caller builds the path; only clients that reach a real server implement it.
  virtual Result<std::string> getPath(const std::string& path) {
    return Error{ErrorCode::Unavailable, "GET " + path + ": not supported by this client"};
  }
};

using ApiClientPtr = std::unique_ptr<ApiClient>;

}  // namespace ingot::k8s
