// SPDX-License-Identifier: Apache-2.0
// The cpprestsdk ApiClient: the only translation unit of Ingot that includes cpprest headers.
// cpprest reports failures with exceptions; every one is caught here and returned as a Result.
#include "kube/rest_client.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <optional>
#include <pplx/threadpool.h>
#include <thread>

#include <cpprest/http_client.h>
#include <cpprest/uri_builder.h>
#include <openssl/ssl.h>

#include "kube/status.h"
#include "kube/token_source.h"
#include "kube/watch_decoder.h"

namespace ingot::k8s {
namespace {

namespace http = web::http;
using http::client::http_client;
using http::client::http_client_config;

/// TlsMaterial holds the PEM text the SSL context is built from, read once at construction.
struct TlsMaterial {
  std::string ca_pem;
  std::string cert_pem;
  std::string key_pem;
  bool insecure = false;
  std::string ca_source;  ///< where trust comes from, for handshake error messages
};

Result<std::string> pem(const std::string& data, const std::string& file, std::string_view what) {
  if (!data.empty() || file.empty()) return data;
  return readFile(file, what);
}

Result<TlsMaterial> loadTls(const ClientConfig& cfg) {
  TlsMaterial m;
  m.insecure = cfg.insecure_skip_tls_verify;
  auto ca = pem(cfg.ca_data, cfg.ca_file, "CA certificate");
  if (!ca) return ca.error();
  m.ca_pem = std::move(*ca);
  m.ca_source = !cfg.ca_data.empty()   ? "the configured CA data"
                : !cfg.ca_file.empty() ? "the CA file " + cfg.ca_file
                                       : "the system trust store";
  auto cert = pem(cfg.client_certificate_data, cfg.client_certificate_file, "client certificate");
  if (!cert) return cert.error();
  m.cert_pem = std::move(*cert);
  auto key = pem(cfg.client_key_data, cfg.client_key_file, "client key");
  if (!key) return key.error();
  m.key_pem = std::move(*key);
  return m;
}

/// applyTls loads the material into an OpenSSL context. With a CA, the store is replaced so that
/// only that CA is trusted (cpprest preloads the system roots).
Result<void> applyTls(boost::asio::ssl::context& ctx, const TlsMaterial& m) {
  boost::system::error_code ec;
  if (!m.ca_pem.empty()) {
    SSL_CTX_set_cert_store(ctx.native_handle(), X509_STORE_new());
    ctx.add_certificate_authority(boost::asio::buffer(m.ca_pem), ec);
    if (ec) return invalidArgument("TLS: CA certificate is not valid PEM: " + ec.message());
  }
  if (!m.cert_pem.empty()) {
    ctx.use_certificate_chain(boost::asio::buffer(m.cert_pem), ec);
    if (ec) return invalidArgument("TLS: client certificate is not valid PEM: " + ec.message());
    ctx.use_private_key(boost::asio::buffer(m.key_pem), boost::asio::ssl::context::pem, ec);
    if (ec) {
      return invalidArgument("TLS: client key is not valid or does not match: " + ec.message());
    }
  }
  return {};
}

/// withQuery appends the non-empty parameters, percent-encoded, to path.
Result<std::string> withQuery(const std::string& path,
                              std::initializer_list<std::pair<const char*, std::string>> params) {
  try {
    web::uri_builder b(path);
    for (const auto& [key, value] : params) {
      if (!value.empty()) b.append_query(key, value, true);
    }
    return b.to_string();
  } catch (const std::exception& e) {
    return invalidArgument("invalid request URI " + path + ": " + e.what());
  }
}

/// transportError wraps a cpprest exception. cpprest reports every TLS failure as "Error in SSL
/// handshake" without OpenSSL's reason, so the message says what to check.
Error transportError(const std::string& op, const std::exception& e, const TlsMaterial& tls) {
  std::string what = e.what();
  if (what.find("SSL handshake") != std::string::npos) {
    what = "TLS handshake failed (" + what +
           "); check that the API server's certificate is "
           "signed by " +
           tls.ca_source + " and valid for the server address";
  }
  return Error{ErrorCode::Unavailable, op + ": " + what};
}

std::string describe(std::string_view verb, const std::string& path) {
  return std::string(verb) + " " + path;
}

/// HttpReply is a completed request: status code, body and the Retry-After header's value
/// (nullopt when absent or not in seconds).
struct HttpReply {
  int status = 0;
  std::string body;
  std::optional<Duration> retry_after;
  int retries = 0;  ///< how many times the client sent the request again before this reply
};

class RestClient final : public ApiClient {
 public:
  RestClient(const ClientConfig& cfg, const RestOptions& opt, TlsMaterial tls)
      : options_(opt),
        clock_(opt.clock != nullptr ? *opt.clock : steadyClock()),
        tls_(std::move(tls)),
        tokens_(cfg.token, cfg.token_file, opt.token_refresh, clock_),
        limiter_(opt.qps, opt.burst, clock_, opt.sleep),
        retry_random_(opt.retry_random ? opt.retry_random : defaultRandom()),
        client_(cfg.server, clientConfig(opt.request_timeout)),
        watch_client_(cfg.server, clientConfig(opt.watch_idle_timeout)) {}

  // ingot::k8s::ApiClient
  Result<std::string> get(const ResourceRef& ref,
                          std::string_view ns,
                          std::string_view name) override {
    return object(http::methods::GET, resourcePath(ref, ns, name), {}, {});
  }

  Result<ListPage> list(const ResourceRef& ref, std::string_view ns, const ListOptions& o) override;

  WatchOutcome watch(const ResourceRef& ref,
                     std::string_view ns,
                     const WatchOptions& o,
                     const WatchHandler& handler,
                     std::stop_token stop) override;

  Result<std::string> create(const ResourceRef& ref,
                             std::string_view ns,
                             std::string_view body) override {
    return object(http::methods::POST, resourcePath(ref, ns), body, "application/json");
  }

  Result<std::string> update(const ResourceRef& ref,
                             std::string_view ns,
                             std::string_view name,
                             std::string_view body) override {
    return object(http::methods::PUT, resourcePath(ref, ns, name), body, "application/json");
  }

  Result<std::string> patch(const ResourceRef& ref,
                            std::string_view ns,
                            std::string_view name,
                            PatchType type,
                            std::string_view body) override {
    return object(http::methods::PATCH, resourcePath(ref, ns, name), body, patchContentType(type));
  }

  Result<std::string> updateStatus(const ResourceRef& ref,
                                   std::string_view ns,
                                   std::string_view name,
                                   std::string_view body) override {
    return object(http::methods::PUT, resourcePath(ref, ns, name, "status"), body,
                  "application/json");
  }

  Result<std::string> patchStatus(const ResourceRef& ref,
                                  std::string_view ns,
                                  std::string_view name,
                                  PatchType type,
                                  std::string_view body) override {
    return object(http::methods::PATCH, resourcePath(ref, ns, name, "status"), body,
                  patchContentType(type));
  }

  Result<std::string> getPath(const std::string& path) override {
    return object(http::methods::GET, path, {}, nullptr);
  }

  Result<void> remove(const ResourceRef& ref, std::string_view ns, std::string_view name) override {
    auto r = object(http::methods::DEL, resourcePath(ref, ns, name), {}, {});
    if (!r) return r.error();
    return {};
  }

 private:
  static const char* patchContentType(PatchType type) {
    return type == PatchType::Merge ? "application/merge-patch+json"
                                    : "application/json-patch+json";
  }

  http_client_config clientConfig(Duration timeout) const {
    http_client_config c;
    c.set_timeout(std::chrono::duration_cast<std::chrono::microseconds>(timeout));
    c.set_validate_certificates(!tls_.insecure);
    const TlsMaterial* tls = &tls_;  // outlives the clients: both are members declared after it
    c.set_ssl_context_callback([tls](boost::asio::ssl::context& ctx) {
      (void)applyTls(ctx, *tls);  // validated in makeRestClient; cannot fail here
    });
    return c;
  }

  Result<http::http_request> newRequest(const http::method& method,
                                        const std::string& uri,
                                        std::string_view body,
                                        const char* content_type);
  Result<HttpReply> send(const http::method& method,
                         const std::string& uri,
                         std::string_view body,
                         const char* content_type);
  Result<HttpReply> sendAuthorised(const http::method& method,
                                   const std::string& uri,
                                   std::string_view body,
                                   const char* content_type);
  Result<HttpReply> sendOnce(const http::method& method,
                             const std::string& uri,
                             std::string_view body,
                             const char* content_type);
  Result<std::string> object(const http::method& method,
                             const std::string& uri,
                             std::string_view body,
                             const char* content_type);
  WatchOutcome streamEvents(http::http_response& response,
                            const WatchHandler& handler,
                            const std::stop_token& stop);

  RestOptions options_;
  Clock& clock_;
  TlsMaterial tls_;
  TokenSource tokens_;
  RateLimiter limiter_;
  Backoff::Random retry_random_;
  http_client client_;
  http_client watch_client_;
};

Result<http::http_request> RestClient::newRequest(const http::method& method,
                                                  const std::string& uri,
                                                  std::string_view body,
                                                  const char* content_type) {
  auto token = tokens_.token();
  if (!token) return Error{ErrorCode::Unauthorized, token.error().message};
  http::http_request req(method);
  req.set_request_uri(uri);
  req.headers().add("Accept", "application/json");
  req.headers().add("User-Agent", options_.user_agent);
  if (!token->empty()) req.headers().add("Authorization", "Bearer " + *token);
  if (content_type != nullptr) req.set_body(std::string(body), content_type);
  return req;
}

Result<HttpReply> RestClient::sendOnce(const http::method& method,
                                       const std::string& uri,
                                       std::string_view body,
                                       const char* content_type) {
  try {
    auto req = newRequest(method, uri, body, content_type);
    if (!req) return Error{req.error().code, describe(method, uri) + ": " + req.error().message};
    limiter_.wait();
    http::http_response resp = client_.request(*req).get();
    std::optional<Duration> retry_after;
    if (auto h = resp.headers().find("Retry-After"); h != resp.headers().end()) {
      retry_after = parseRetryAfter(h->second);
    }
    return HttpReply{resp.status_code(), resp.extract_utf8string(true).get(), retry_after};
  } catch (const std::exception& e) {
    return transportError(describe(method, uri), e, tls_);
  }
}

Result<HttpReply> RestClient::send(const http::method& method,
                                   const std::string& uri,
                                   std::string_view body,
                                   const char* content_type) {
  const bool read = method == http::methods::GET;
  RetryBudget budget(options_.retry, retry_random_);
  for (;;) {
    auto reply = sendAuthorised(method, uri, body, content_type);
    // Connection failures are left to the caller: the request may have been sent, and the
    // callers (reflector, reconcile queue, start-up check) back off on their own.
    if (!reply) return reply;
    reply->retries = budget.retries();
    const auto reason = retryReasonFor(read, reply->status);
    if (!reason) return reply;
    const auto wait = budget.next(reply->retry_after);
    if (!wait) return reply;
    if (options_.on_retry) options_.on_retry(*reason);
    if (options_.retry_sleep) {
      options_.retry_sleep(*wait);
    } else {
      std::this_thread::sleep_for(*wait);
    }
  }
}

Result<HttpReply> RestClient::sendAuthorised(const http::method& method,
                                             const std::string& uri,
                                             std::string_view body,
                                             const char* content_type) {
  auto reply = sendOnce(method, uri, body, content_type);
  if (reply && reply->status == 401 && tokens_.fileBacked()) {
    tokens_.invalidate();  // the kubelet may have rotated the token since we read it
    reply = sendOnce(method, uri, body, content_type);
  }
  return reply;
}

Result<std::string> RestClient::object(const http::method& method,
                                       const std::string& uri,
                                       std::string_view body,
                                       const char* content_type) {
  auto reply = send(method, uri, body, content_type);
  if (!reply) return reply.error();
  if (reply->status < 200 || reply->status >= 300) {
    Error e = httpError(describe(method, uri), reply->status, reply->body);
    if (reply->retries > 0) e.message += " after " + std::to_string(reply->retries) + " retries";
    return e;
  }
  return std::move(reply->body);
}

Result<ListPage> RestClient::list(const ResourceRef& ref,
                                  std::string_view ns,
                                  const ListOptions& o) {
  const auto uri = withQuery(resourcePath(ref, ns),
                             {{"labelSelector", o.label_selector},
                              {"fieldSelector", o.field_selector},
                              {"limit", o.limit > 0 ? std::to_string(o.limit) : std::string()},
                              {"continue", o.continue_token},
                              {"resourceVersion", o.resource_version}});
  if (!uri) return uri.error();
  auto body = object(http::methods::GET, *uri, {}, nullptr);
  if (!body) return body.error();
  auto page = parseListPage(*body);
  if (!page) return Error{ErrorCode::Internal, describe("GET", *uri) + ": " + page.error().message};
  return page;
}

WatchOutcome RestClient::watch(const ResourceRef& ref,
                               std::string_view ns,
                               const WatchOptions& o,
                               const WatchHandler& handler,
                               std::stop_token stop) {
  const auto uri =
      withQuery(resourcePath(ref, ns),
                {{"watch", "true"},
                 {"resourceVersion", o.resource_version},
                 {"allowWatchBookmarks", o.allow_bookmarks ? "true" : ""},
                 {"timeoutSeconds", o.timeout_seconds > 0 ? std::to_string(o.timeout_seconds) : ""},
                 {"labelSelector", o.label_selector},
                 {"fieldSelector", o.field_selector}});
  if (!uri) return {WatchEnd::Failed, uri.error()};
  const std::string op = describe("WATCH", *uri);
  pplx::cancellation_token_source cts;
  std::stop_callback on_stop(stop, [&cts] { cts.cancel(); });
  try {
    auto req = newRequest(http::methods::GET, *uri, {}, nullptr);
    if (!req) return {WatchEnd::Failed, Error{req.error().code, op + ": " + req.error().message}};
    limiter_.wait();
    http::http_response resp = watch_client_.request(*req, cts.get_token()).get();
    if (resp.status_code() != 200) {
      if (resp.status_code() == 401) tokens_.invalidate();
      Error e = httpError(op, resp.status_code(), resp.extract_utf8string(true).get());
      return {e.code == ErrorCode::Gone ? WatchEnd::Gone : WatchEnd::Failed, e};
    }
    WatchOutcome out = streamEvents(resp, handler, stop);
    if (out.end == WatchEnd::Failed || out.end == WatchEnd::Gone) {
      out.error.message = op + ": " + out.error.message;
    }
    return out;
  } catch (const std::exception& e) {
    if (stop.stop_requested()) return {WatchEnd::Cancelled, {}};
    return {WatchEnd::Failed, transportError(op, e, tls_)};
  }
}

/// errorEventOutcome turns a watch ERROR event (a Status) into how the watch ends.
WatchOutcome errorEventOutcome(const std::string& object) {
  const auto status = parseStatus(object);
  const int code = status && status->code != 0 ? status->code : 500;
  Error e = httpError("watch ERROR event", code, object);
  return {e.code == ErrorCode::Gone ? WatchEnd::Gone : WatchEnd::Failed, std::move(e)};
}

WatchOutcome RestClient::streamEvents(http::http_response& response,
                                      const WatchHandler& handler,
                                      const std::stop_token& stop) {
  auto body = response.body().streambuf();
  WatchDecoder decoder(options_.max_watch_event_bytes);
  std::array<uint8_t, 64 * 1024> buf{};
  for (;;) {
    if (stop.stop_requested()) return {WatchEnd::Cancelled, {}};
    // getn waits for the full count, so block for one byte and then take what has arrived.
    size_t n = body.getn(buf.data(), 1).get();
    if (n == 0) {
      if (auto r = decoder.finish(); !r) return {WatchEnd::Failed, r.error()};
      return {WatchEnd::Closed, {}};
    }
    const size_t avail = std::min(body.in_avail(), buf.size() - 1);
    if (avail > 0) n += body.getn(buf.data() + 1, avail).get();
    auto events = decoder.feed(std::string_view(reinterpret_cast<const char*>(buf.data()), n));
    if (!events) return {WatchEnd::Failed, Error{ErrorCode::Unavailable, events.error().message}};
    for (const WatchEvent& e : *events) {
      if (e.type == WatchEventType::Error) return errorEventOutcome(e.object);
      if (!handler(e)) return {WatchEnd::Cancelled, {}};
    }
  }
}

/// sizeIoPool gives cpprestsdk's process-wide I/O pool `threads` threads (its default is 40,
/// each with a stack and, with glibc, possibly its own malloc arena). Only the first client of a
/// process decides; the pool only runs asio completions (every blocking wait is on the caller's
/// thread), so a few threads serve any number of watches.
void sizeIoPool(int threads) {
  static std::once_flag once;
  std::call_once(once, [threads] {
    try {
      crossplat::threadpool::initialize_with_threads(static_cast<size_t>(std::max(1, threads)));
    } catch (const std::exception&) {
      // Already started by someone else in this process: keep its size.
    }
  });
}

}  // namespace

Result<ApiClientPtr> makeRestClient(const ClientConfig& config, const RestOptions& options) {
  if (config.server.empty()) return invalidArgument("REST client: no API server address");
  sizeIoPool(options.io_threads);
  auto tls = loadTls(config);
  if (!tls) return Error{tls.error().code, "REST client: " + tls.error().message};
  try {
    boost::asio::ssl::context probe(boost::asio::ssl::context::sslv23);
    if (auto r = applyTls(probe, *tls); !r) {
      return Error{r.error().code, "REST client: " + r.error().message};
    }
    const web::uri base(config.server);
    if (base.scheme() != "https" && base.scheme() != "http") {
      return invalidArgument("REST client: server " + config.server + " is not an http(s) URL");
    }
    return ApiClientPtr(std::make_unique<RestClient>(config, options, std::move(*tls)));
  } catch (const std::exception& e) {
    return invalidArgument("REST client: server " + config.server + ": " + e.what());
  }
}

}  // namespace ingot::k8s
