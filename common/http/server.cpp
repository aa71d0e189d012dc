// SPDX-License-Identifier: Apache-2.0
#include "common/http/server.h"

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <set>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <vector>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "common/http/listener.h"

namespace ingot::http {
namespace {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;

constexpr uint64_t kListenId = 0;
constexpr uint64_t kWakeId = 1;
constexpr uint64_t kFirstConnId = 2;
constexpr int kMaxEvents = 64;
constexpr size_t kReadChunk = 16384;
constexpr int kMaxDrainReads = 64;
constexpr std::chrono::milliseconds kDrainTime{1000};
constexpr std::chrono::milliseconds kAcceptPause{100};
constexpr const char* kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

/// Phase is where a connection is in its request cycle; each has its own deadline.
enum class Phase {
  Handshake,  ///< TLS handshake (handshake_timeout)
  Reading,    ///< waiting for or reading a request (head_timeout, then request_timeout)
  Handling,   ///< a handler has the request (no deadline; nothing is read)
  Writing,    ///< sending the response (write_timeout)
  Draining,   ///< response sent, write side shut, discarding input before closing
};

/// IoResult is the outcome of one non-blocking read or write.
enum class IoResult { Progress, Again, Eof, Failed };

struct Conn {
  uint64_t id = 0;
  int fd = -1;
  SSL* ssl = nullptr;
  std::string peer;
  Phase phase = Phase::Reading;
  std::string in;
  std::optional<Head> head;
  size_t head_len = 0;
  std::string out;
  size_t out_off = 0;
  uint32_t want = 0;  ///< epoll events the last Again asked for
  uint32_t events = 0;
  bool keep_alive = false;
  bool head_only = false;
  bool close_after = false;
  size_t served = 0;
  TimePoint ready_at;  ///< when the current request could start (accept, handshake, last answer)
  TimePoint deadline = TimePoint::max();

  Conn() = default;
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;
  ~Conn() {
    if (ssl != nullptr) SSL_free(ssl);
    if (fd >= 0) close(fd);
  }
  bool outPending() const { return out_off < out.size(); }
};

/// sslResult maps an SSL_* return value to an IoResult, recording the events to wait for.
IoResult sslResult(Conn& c, int r) {
  switch (SSL_get_error(c.ssl, r)) {
    case SSL_ERROR_WANT_READ:
      c.want = EPOLLIN;
      return IoResult::Again;
    case SSL_ERROR_WANT_WRITE:
      c.want = EPOLLOUT;
      return IoResult::Again;
    case SSL_ERROR_ZERO_RETURN:
      return IoResult::Eof;
    default:
      ERR_clear_error();
      return IoResult::Failed;
  }
}

IoResult errnoResult(Conn& c, uint32_t want) {
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
    c.want = want;
    return IoResult::Again;
  }
  return IoResult::Failed;
}

/// readSome appends what can be read now (at most one chunk) to c.in.
IoResult readSome(Conn& c) {
  char buf[kReadChunk];
  if (c.ssl != nullptr) {
    ERR_clear_error();
    const int r = SSL_read(c.ssl, buf, sizeof buf);
    if (r <= 0) return sslResult(c, r);
    c.in.append(buf, static_cast<size_t>(r));
    return IoResult::Progress;
  }
  const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
  if (n == 0) return IoResult::Eof;
  if (n < 0) return errnoResult(c, EPOLLIN);
  c.in.append(buf, static_cast<size_t>(n));
  return IoResult::Progress;
}

/// writeSome writes what it can of c.out now.
IoResult writeSome(Conn& c) {
  const char* data = c.out.data() + c.out_off;
  const size_t left = c.out.size() - c.out_off;
  if (c.ssl != nullptr) {
    ERR_clear_error();
    const int r = SSL_write(c.ssl, data, static_cast<int>(std::min<size_t>(left, INT32_MAX)));
    if (r <= 0) return sslResult(c, r);
    c.out_off += static_cast<size_t>(r);
    return IoResult::Progress;
  }
  const ssize_t n = send(c.fd, data, left, MSG_NOSIGNAL);
  if (n < 0) return errnoResult(c, EPOLLOUT);
  c.out_off += static_cast<size_t>(n);
  return IoResult::Progress;
}

Response plain(int status, const std::string& message) {
  return Response{status, "text/plain; charset=utf-8", message + "\n"};
}

}  // namespace

struct Server::Impl {
  ServerOptions opt;
  Handler handler;
  int listen_fd = -1;
  int epoll_fd = -1;
  int wake_fd = -1;
  int port = 0;

  // Loop thread only.
  std::unordered_map<uint64_t, std::unique_ptr<Conn>> conns;
  std::unordered_map<std::string, size_t> per_client;
  std::set<std::pair<TimePoint, uint64_t>> timers;
  uint64_t next_id = kFirstConnId;
  std::optional<TimePoint> accept_paused_until;

  // Shared with the workers.
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::pair<uint64_t, Request>> jobs;
  std::deque<std::pair<uint64_t, Response>> done;
  bool workers_stop = false;

  std::atomic<bool> stopping{false};
  std::atomic<uint64_t> accepted{0}, refused{0}, evicted{0}, timed_out{0}, requests{0};
  std::atomic<size_t> open{0};
  std::thread loop;
  std::vector<std::thread> workers;

  ~Impl() {
    for (const int fd : {listen_fd, epoll_fd, wake_fd}) {
      if (fd >= 0) close(fd);
    }
  }

  // --- loop ---------------------------------------------------------------------------------

  void run() {
    // OpenSSL writes to the socket itself: a peer gone mid-write must be an error, not a signal.
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    epoll_event events[kMaxEvents];
    while (!stopping.load()) {
      const int n = epoll_wait(epoll_fd, events, kMaxEvents, timeoutMs());
      if (n < 0 && errno != EINTR) break;
      for (int i = 0; i < n; ++i) {
        const uint64_t id = events[i].data.u64;
        if (id == kListenId) {
          acceptAll();
        } else if (id == kWakeId) {
          takeAnswers();
        } else {
          onEvent(id, events[i].events);
        }
      }
      expire(Clock::now());
    }
    timers.clear();
    conns.clear();
    per_client.clear();
    open.store(0);
  }

  int timeoutMs() const {
    std::optional<TimePoint> next = accept_paused_until;
    if (!timers.empty() && (!next || timers.begin()->first < *next)) next = timers.begin()->first;
    if (!next) return -1;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(*next - Clock::now()).count() + 1;
    return left < 0 ? 0 : static_cast<int>(std::min<int64_t>(left, INT32_MAX));
  }

  void expire(TimePoint now) {
    if (accept_paused_until && *accept_paused_until <= now) {
      accept_paused_until.reset();
      epoll_event ev{EPOLLIN, {.u64 = kListenId}};
      epoll_ctl(epoll_fd, EPOLL_CTL_MOD, listen_fd, &ev);
    }
    while (!timers.empty() && timers.begin()->first <= now) {
      const uint64_t id = timers.begin()->second;
      timers.erase(timers.begin());
      auto it = conns.find(id);
      if (it == conns.end()) continue;
      Conn& c = *it->second;
      c.deadline = TimePoint::max();
      if (c.phase != Phase::Draining) timed_out.fetch_add(1);
      closeConn(c);
    }
  }

  // --- accepting ----------------------------------------------------------------------------

  void acceptAll() {
    while (!accept_paused_until) {
      sockaddr_storage ss{};
      socklen_t len = sizeof ss;
      const int fd =
          accept4(listen_fd, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd >= 0) {
        admit(fd, peerText(ss));
        continue;
      }
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: stop polling the listener for a moment instead of spinning on it.
        accept_paused_until = Clock::now() + kAcceptPause;
        epoll_event ev{0, {.u64 = kListenId}};
        epoll_ctl(epoll_fd, EPOLL_CTL_MOD, listen_fd, &ev);
      }
      return;
    }
  }

  void admit(int fd, const std::string& peer) {
    accepted.fetch_add(1);
    auto count = per_client.find(peer);
    if (count != per_client.end() && count->second >= opt.max_connections_per_client) {
      refused.fetch_add(1);
      close(fd);
      return;
    }
    if (conns.size() >= opt.max_connections && !evictOldestWaiting()) {
      refused.fetch_add(1);
      close(fd);
      return;
    }
    auto conn = std::make_unique<Conn>();
    Conn& c = *conn;
    c.id = next_id++;
    c.fd = fd;
    c.peer = peer;
    c.ready_at = Clock::now();
    epoll_event ev{EPOLLIN, {.u64 = c.id}};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) return;  // conn closes fd
    c.events = EPOLLIN;
    if (opt.tls) {
      c.ssl = SSL_new(opt.tls.get());
      if (c.ssl == nullptr || SSL_set_fd(c.ssl, fd) != 1) {
        ERR_clear_error();
        return;
      }
      SSL_set_accept_state(c.ssl);
      SSL_set_mode(c.ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
      c.phase = Phase::Handshake;
      setDeadline(c, c.ready_at + opt.handshake_timeout);
    } else {
      c.phase = Phase::Reading;
      setDeadline(c, c.ready_at + opt.head_timeout);
    }
    ++per_client[peer];
    conns.emplace(c.id, std::move(conn));
    open.store(conns.size());
  }

  /// evictOldestWaiting closes the connection that has waited longest for its request (in its
  /// handshake or before its request is complete): under a flood of idle connections the new
  /// connection gets a place and the idle ones go first.
  bool evictOldestWaiting() {
    Conn* oldest = nullptr;
    for (auto& [id, c] : conns) {
      const bool waiting = c->phase == Phase::Handshake || c->phase == Phase::Reading;
      if (waiting && (oldest == nullptr || c->ready_at < oldest->ready_at)) oldest = c.get();
    }
    if (oldest == nullptr) return false;
    evicted.fetch_add(1);
    closeConn(*oldest);
    return true;
  }

  // --- connections --------------------------------------------------------------------------

  void setDeadline(Conn& c, TimePoint t) {
    if (c.deadline != TimePoint::max()) timers.erase({c.deadline, c.id});
    c.deadline = t;
    if (t != TimePoint::max()) timers.insert({t, c.id});
  }

  void setInterest(Conn& c, uint32_t events) {
    if (events == c.events) return;
    epoll_event ev{events, {.u64 = c.id}};
    epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c.fd, &ev);
    c.events = events;
  }

  void closeConn(Conn& c) {
    setDeadline(c, TimePoint::max());
    if (auto it = per_client.find(c.peer); it != per_client.end() && --it->second == 0) {
      per_client.erase(it);
    }
    conns.erase(c.id);  // closes the socket, which also leaves the epoll set
    open.store(conns.size());
  }

  void onEvent(uint64_t id, uint32_t events) {
    auto it = conns.find(id);
    if (it == conns.end()) return;
    Conn& c = *it->second;
    if ((events & EPOLLERR) != 0 || (c.phase == Phase::Handling && (events & EPOLLHUP) != 0)) {
      closeConn(c);  // the client is gone; a late answer finds no connection and is dropped
      return;
    }
    switch (c.phase) {
      case Phase::Handshake:
        handshake(c);
        break;
      case Phase::Reading:
        readRequest(c);
        break;
      case Phase::Writing:
        writeResponse(c);
        break;
      case Phase::Draining:
        drain(c);
        break;
      case Phase::Handling:
        break;
    }
  }

  void handshake(Conn& c) {
    ERR_clear_error();
    const int r = SSL_do_handshake(c.ssl);
    if (r == 1) {
      beginRequest(c);
      return;
    }
    if (sslResult(c, r) != IoResult::Again) {
      closeConn(c);
      return;
    }
    setInterest(c, c.want);
  }

  /// beginRequest makes c ready for its next request: the head deadline starts now.
  void beginRequest(Conn& c) {
    c.phase = Phase::Reading;
    c.ready_at = Clock::now();
    c.head.reset();
    setDeadline(c, c.ready_at + opt.head_timeout);
    readRequest(c);
  }

  void readRequest(Conn& c) {
    for (;;) {
      if (c.outPending()) {  // a "100 Continue"
        const IoResult w = writeSome(c);
        if (w == IoResult::Failed || w == IoResult::Eof) {
          closeConn(c);
          return;
        }
        if (w == IoResult::Again) {
          setInterest(c, c.want | EPOLLIN);
          return;
        }
        continue;
      }
      if (takeRequest(c)) return;
      if (c.outPending()) continue;  // send the "100 Continue" takeRequest queued
      const IoResult r = readSome(c);
      if (r == IoResult::Progress) continue;
      if (r == IoResult::Again) {
        setInterest(c, c.want);
        return;
      }
      closeConn(c);  // end of stream or error before a complete request
      return;
    }
  }

  /// takeRequest checks what has been read: true when it refused the request or handed it to the
  /// handler (c is then no longer reading, or is closed), false when more input is needed.
  bool takeRequest(Conn& c) {
    if (!c.head) {
      const size_t len = headLength(c.in);
      if ((len == 0 && c.in.size() > opt.max_head_bytes) || len > opt.max_head_bytes) {
        refuse(c, 431, "request head larger than " + std::to_string(opt.max_head_bytes) + " bytes");
        return true;
      }
      if (len == 0) return false;
      auto parsed = parseHead(std::string_view(c.in).substr(0, len));
      if (const auto* e = std::get_if<HeadError>(&parsed)) {
        refuse(c, e->status, e->message);
        return true;
      }
      Head& h = std::get<Head>(parsed);
      if (h.content_length > opt.max_body_bytes) {
        refuse(c, 413, "request body larger than " + std::to_string(opt.max_body_bytes) + " bytes");
        return true;
      }
      c.head_len = len;
      c.head = std::move(h);
      setDeadline(c, c.ready_at + opt.request_timeout);
      if (c.head->expect_continue && c.in.size() < len + c.head->content_length) {
        c.out = kContinue;
        c.out_off = 0;
        return false;
      }
    }
    const size_t total = c.head_len + c.head->content_length;
    if (c.in.size() < total) return false;
    Request request = std::move(c.head->request);
    request.body = c.in.substr(c.head_len, c.head->content_length);
    request.peer = c.peer;
    c.in.erase(0, total);
    c.keep_alive = c.head->keep_alive;
    c.head_only = request.method == "HEAD";
    c.head.reset();
    dispatch(c, std::move(request));
    return true;
  }

  void refuse(Conn& c, int status, const std::string& message) {
    c.close_after = true;
    c.head_only = false;
    respond(c, plain(status, message));
  }

  void dispatch(Conn& c, Request request) {
    requests.fetch_add(1);
    c.phase = Phase::Handling;
    setDeadline(c, TimePoint::max());
    setInterest(c, 0);
    if (opt.workers == 0) {
      respond(c, callHandler(request));
      return;
    }
    {
      std::lock_guard lock(mu);
      jobs.emplace_back(c.id, std::move(request));
    }
    cv.notify_one();
  }

  Response callHandler(const Request& request) const {
    try {
      return handler(request);
    } catch (const std::exception& e) {
      return plain(500, std::string("internal error: ") + e.what());
    } catch (...) {
      return plain(500, "internal error");
    }
  }

  void respond(Conn& c, const Response& response) {
    ++c.served;
    const bool keep = c.keep_alive && !c.close_after &&
                      c.served < opt.max_requests_per_connection && !stopping.load();
    c.close_after = !keep;
    std::string text = renderResponse(response, c.head_only, keep);
    c.out = c.outPending() ? c.out.substr(c.out_off) + text : std::move(text);
    c.out_off = 0;
    c.phase = Phase::Writing;
    setDeadline(c, Clock::now() + opt.write_timeout);
    writeResponse(c);
  }

  void writeResponse(Conn& c) {
    while (c.outPending()) {
      const IoResult w = writeSome(c);
      if (w == IoResult::Again) {
        setInterest(c, c.want);
        return;
      }
      if (w != IoResult::Progress) {
        closeConn(c);
        return;
      }
    }
    c.out.clear();
    c.out_off = 0;
    if (c.close_after) {
      startDrain(c);
    } else {
      beginRequest(c);
    }
  }

  /// startDrain shuts the write side and reads until the client closes (or a short deadline), so
  /// unread request bytes do not make the kernel reset the connection before the client has read
  /// the response.
  void startDrain(Conn& c) {
    c.phase = Phase::Draining;
    if (c.ssl != nullptr) {
      ERR_clear_error();
      SSL_shutdown(c.ssl);  // close_notify, best effort
      ERR_clear_error();
    }
    shutdown(c.fd, SHUT_WR);
    setDeadline(c, Clock::now() + kDrainTime);
    setInterest(c, EPOLLIN);
    drain(c);
  }

  void drain(Conn& c) {
    char buf[kReadChunk];
    for (int i = 0; i < kMaxDrainReads; ++i) {
      const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
      if (n > 0) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
      break;
    }
    closeConn(c);
  }

  // --- workers ------------------------------------------------------------------------------

  void work() {
    for (;;) {
      std::pair<uint64_t, Request> job;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [this] { return workers_stop || !jobs.empty(); });
        if (workers_stop) return;
        job = std::move(jobs.front());
        jobs.pop_front();
      }
      Response response = callHandler(job.second);
      {
        std::lock_guard lock(mu);
        done.emplace_back(job.first, std::move(response));
      }
      const uint64_t one = 1;
      (void)!write(wake_fd, &one, sizeof one);
    }
  }

  void takeAnswers() {
    uint64_t n = 0;
    (void)!read(wake_fd, &n, sizeof n);
    std::deque<std::pair<uint64_t, Response>> answers;
    {
      std::lock_guard lock(mu);
      answers.swap(done);
    }
    for (auto& [id, response] : answers) {
      auto it = conns.find(id);
      if (it != conns.end() && it->second->phase == Phase::Handling) {
        respond(*it->second, response);
      }
    }
  }
};

Result<std::unique_ptr<Server>> Server::start(ServerOptions options, Handler handler) {
  auto impl = std::make_unique<Impl>();
  auto fd = bindListener(options.address, options.port);
  if (!fd) return fd.error();
  impl->listen_fd = *fd;
  impl->port = boundPort(*fd);
  impl->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  impl->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (impl->epoll_fd < 0 || impl->wake_fd < 0) {
    return Error{ErrorCode::Unavailable,
                 "http server: epoll/eventfd: " + std::string(strerror(errno))};
  }
  epoll_event listen_ev{EPOLLIN, {.u64 = kListenId}};
  epoll_event wake_ev{EPOLLIN, {.u64 = kWakeId}};
  epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, impl->listen_fd, &listen_ev);
  epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, impl->wake_fd, &wake_ev);
  impl->opt = std::move(options);
  impl->handler = std::move(handler);
  Impl* raw = impl.get();
  for (int i = 0; i < raw->opt.workers; ++i) raw->workers.emplace_back([raw] { raw->work(); });
  raw->loop = std::thread([raw] { raw->run(); });
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() {
  stop();
}

int Server::port() const {
  return impl_->port;
}

ServerStats Server::stats() const {
  ServerStats s;
  s.accepted = impl_->accepted.load();
  s.refused = impl_->refused.load();
  s.evicted = impl_->evicted.load();
  s.timed_out = impl_->timed_out.load();
  s.requests = impl_->requests.load();
  s.open = impl_->open.load();
  return s;
}

void Server::stop() {
  Impl& i = *impl_;
  if (i.loop.joinable()) {
    i.stopping.store(true);
    const uint64_t one = 1;
    (void)!write(i.wake_fd, &one, sizeof one);
    i.loop.join();
  }
  {
    std::lock_guard lock(i.mu);
    i.workers_stop = true;
    i.jobs.clear();
  }
  i.cv.notify_all();
  for (auto& w : i.workers) {
    if (w.joinable()) w.join();
  }
  if (i.listen_fd >= 0) {
    close(i.listen_fd);
    i.listen_fd = -1;
  }
}

}  // namespace ingot::http
