// SPDX-License-Identifier: Apache-2.0
#include "agent/daemon/membership_source.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "agent/memberlist/core/security.h"
#include "common/net/ip.h"

namespace ingot::agent {
namespace {

namespace ml = memberlist;

/// ipOf returns a member's address; IPv4-mapped IPv6 (Go may send 16 bytes) is IPv4.
std::optional<net::IpAddress> ipOf(const ml::Endpoint& e) {
  net::U128 v = 0;
  for (uint8_t b : e.ip) {
    v = (v << 8) | b;
  }
  if (e.ip.size() == 4) {
    return net::IpAddress::v4(static_cast<uint32_t>(v));
  }
  if (e.ip.size() != 16) {
    return std::nullopt;
  }
  if ((v >> 32) == 0xffff) {
    return net::IpAddress::v4(static_cast<uint32_t>(v));
  }
  return net::IpAddress::v6(v);
}

std::string ipText(const ml::Endpoint& e) {
  auto ip = ipOf(e);
  return ip ? ip->toString() : std::string();
}

Result<std::string> readFile(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return invalidArgument("read " + std::string(what) + " " + path + ": cannot open the file");
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// keyring reads MetalLB's secret file and derives the AES key as MetalLB does.
Result<std::optional<ml::Keyring>> keyring(const ml::MembershipOptions& o, log::Logger& logger) {
  if (o.secret_key_path.empty()) {
    logger.warn("startup", "memberlist_plaintext",
                "no ml-secret-key set, memberlist traffic will not be encrypted");
    return std::optional<ml::Keyring>();
  }
  auto secret = readFile(o.secretFile(), "the memberlist secret key (--ml-secret-key-path)");
  if (!secret) {
    return secret.error();
  }
  const std::vector<uint8_t> bytes(secret->begin(), secret->end());
  auto ring = ml::Keyring::create({ml::deriveMetalLbKey(bytes)});
  if (!ring) {
    return Error{ring.error().code, o.secretFile() + ": " + ring.error().message};
  }
  return std::optional<ml::Keyring>(std::move(*ring));
}

/// timing is the base timing (--ml-wan-config) with the tuning file over it when it exists.
Result<ml::Timing> timing(const ml::MembershipOptions& o, log::Logger& logger) {
  const ml::Timing base = ml::baseTiming(o.wan_config);
  std::error_code ec;
  if (o.tuning_path.empty() || !std::filesystem::exists(o.tuning_path, ec)) {
    return base;
  }
  logger.info("startup", "memberlist_config", "loading memberlist config from file",
              {{"path", o.tuning_path}});
  auto text = readFile(o.tuning_path, "the memberlist tuning file (--ml-tuning-path)");
  if (!text) {
    return text.error();
  }
  std::vector<std::string> ignored;
  auto t = ml::parseTuning(*text, base, &ignored);
  if (!t) {
    return Error{t.error().code, o.tuning_path + ": " + t.error().message};
  }
  for (const auto& key : ignored) {
    logger.warn("startup", "memberlist_config_ignored",
                "memberlist tuning key accepted without effect", {{"key", key}});
  }
  return t;
}

}  // namespace

std::string_view eventName(ml::Outbox::Event::Kind kind) {
  switch (kind) {
    case ml::Outbox::Event::Kind::Join:
      return "NodeJoin";
    case ml::Outbox::Event::Kind::Leave:
      return "NodeLeave";
    case ml::Outbox::Event::Kind::Update:
      return "NodeUpdate";
  }
  return "NodeUpdate";
}

LiveSet::LiveSet(std::string self, log::Logger& logger) : self_(std::move(self)), log_(logger) {}

void LiveSet::setNotify(std::function<void()> notify) {
  std::lock_guard lock(mu_);
  notify_ = std::move(notify);
}

void LiveSet::onEvent(const ml::Outbox::Event& event) {
  const std::string addr = ipText(event.addr);
  const std::string kind(eventName(event.kind));
  if (event.kind == ml::Outbox::Event::Kind::Leave) {  // how it left: the failover's cause
    log_.info("memberlist", "nodeEvent", "node event - forcing sync",
              {{"node addr", addr},
               {"node name", event.name},
               {"node event", kind},
               {"left", event.left ? "gracefully" : "declared dead"}});
  } else {
    log_.info("memberlist", "nodeEvent", "node event - forcing sync",
              {{"node addr", addr}, {"node name", event.name}, {"node event", kind}});
  }
  std::lock_guard lock(mu_);
  if (event.kind == ml::Outbox::Event::Kind::Join ||
      event.kind == ml::Outbox::Event::Kind::Update) {
    live_.insert(event.name);
    meta_[event.name] = std::string(event.meta.begin(), event.meta.end());
  } else if (event.kind == ml::Outbox::Event::Kind::Leave) {
    live_.erase(event.name);
    if (event.name != self_) {
      meta_.erase(event.name);
    }
  }
  if (notify_) {
    notify_();
  }
}

void LiveSet::markJoined() {
  std::lock_guard lock(mu_);
  if (joined_) {
    return;
  }
  joined_ = true;
  if (notify_) {
    notify_();
  }
}

bool LiveSet::joined() const {
  std::lock_guard lock(mu_);
  return joined_;
}

std::map<std::string, std::string> LiveSet::metadata() const {
  std::lock_guard lock(mu_);
  return meta_;
}

void LiveSet::setSelfMetadata(std::string meta) {
  std::lock_guard lock(mu_);
  meta_[self_] = std::move(meta);
}

std::set<std::string> LiveSet::live() const {
  std::lock_guard lock(mu_);
  std::set<std::string> out = live_;
  out.insert(self_);
  return out;
}

std::vector<std::string> seedsToJoin(const std::vector<std::string>& pod_ips,
                                     const std::vector<ml::MemberView>& members,
                                     uint16_t port) {
  std::set<net::IpAddress> current;
  for (const auto& m : members) {
    if (m.state == ml::NodeState::Dead || m.state == ml::NodeState::Left) {
      continue;  // as memberlist's Members(): a dead member's address is joined again
    }
    if (auto ip = ipOf(m.addr)) {
      current.insert(*ip);
    }
  }
  std::set<net::IpAddress> wanted;
  for (const auto& text : pod_ips) {
    auto ip = net::IpAddress::parse(text);
    if (ip && !current.contains(*ip)) {
      wanted.insert(*ip);
    }
  }
  std::vector<std::string> out;
  for (const auto& ip : wanted) {
    const std::string host = ip.isV6() ? "[" + ip.toString() + "]" : ip.toString();
    out.push_back(host + ":" + std::to_string(port));
  }
  return out;
}

MembershipSource::MembershipSource(ml::TransportConfig config,
                                   std::string labels,
                                   log::Logger& logger)
    : log_(logger),
      config_(std::move(config)),
      labels_(std::move(labels)),
      port_(config_.port),
      join_timeout_(config_.timing.tcp_timeout),
      live_(config_.name, logger) {}

Result<std::unique_ptr<MembershipSource>> MembershipSource::create(
    const std::string& node, const ml::MembershipOptions& options, log::Logger& logger) {
  auto ring = keyring(options, logger);
  if (!ring) {
    return ring.error();
  }
  auto t = timing(options, logger);
  if (!t) {
    return t.error();
  }
  ml::TransportConfig cfg;
  cfg.name = node;
  cfg.bind_addr = options.bind_addr;
  cfg.port = options.bind_port;
  cfg.timing = *t;
  cfg.keyring = std::move(*ring);
  return std::unique_ptr<MembershipSource>(
      new MembershipSource(std::move(cfg), options.labels, logger));
}

Result<void> MembershipSource::setMetadata(const std::string& meta) {
  if (meta.size() > ml::kMaxMetaLength) {
    return Error{ErrorCode::InvalidArgument,
                 "memberlist metadata is " + std::to_string(meta.size()) +
                     " bytes, more than the limit of " + std::to_string(ml::kMaxMetaLength)};
  }
  config_.meta.assign(meta.begin(), meta.end());
  live_.setSelfMetadata(meta);
  return {};
}

MembershipSource::~MembershipSource() {
  detach();
}

Result<void> MembershipSource::attach(std::function<void()> notify,
                                      PodIps pod_ips,
                                      std::chrono::milliseconds join_interval) {
  const std::string bind_addr = config_.bind_addr;
  const std::string where = bind_addr + ":" + std::to_string(config_.port);
  const bool encrypted = config_.keyring.has_value();
  LiveSet* live = &live_;
  auto member = ml::Node::start(std::move(config_), &log_,
                                [live](const ml::Outbox::Event& e) { live->onEvent(e); });
  if (!member) {
    return Error{member.error().code, "memberlist on " + where + ": " + member.error().message};
  }
  node_ = std::move(*member);
  port_ = node_->port();
  log_.info("startup", "memberlist_started", "memberlist started",
            {{"node", std::string(live_.self())},
             {"bind_addr", bind_addr},
             log::num("bind_port", port_),
             {"labels", labels_},
             {"encrypted", encrypted ? "true" : "false"}});
  live_.setNotify(std::move(notify));
  pod_ips_ = std::move(pod_ips);
  joiner_ = std::thread([this, join_interval] { joinLoop(join_interval); });
  return {};
}

void MembershipSource::detach() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (joiner_.joinable()) {
    joiner_.join();
  }
  live_.setNotify({});
}

void MembershipSource::rejoin() {
  bool pending = false;
  {
    std::lock_guard lock(mu_);
    pending = wake_;
    wake_ = true;
  }
  if (pending) {
    log_.debug("memberDiscovery", "rejoin", "previous discovery in progress - doing nothing");
    return;
  }
  log_.info("memberDiscovery", "rejoin", "triggering discovery");
  cv_.notify_all();
}

void MembershipSource::joinLoop(std::chrono::milliseconds interval) {
  // MetalLB joins every minute. Ingot also retries seeds still missing after 1 s, 2 s, 4 s … up to
  // that minute, so agents that start together find each other in seconds.
  constexpr std::chrono::milliseconds kFirstRetry{1000};
  std::chrono::milliseconds retry = kFirstRetry;
  std::unique_lock lock(mu_);
  bool first = true;
  while (!stopping_) {
    wake_ = false;
    lock.unlock();
    const bool attempted = joinMissing();
    lock.lock();
    if (first) {
      awaitFirstJoin(lock, attempted);
      first = false;
    }
    std::chrono::milliseconds wait = interval;
    if (attempted) {
      wait = std::min(retry, interval);
      retry = std::min(retry * 2, interval);
    } else {
      retry = kFirstRetry;
    }
    cv_.wait_for(lock, wait, [this] { return stopping_ || wake_; });
  }
}

void MembershipSource::awaitFirstJoin(std::unique_lock<std::mutex>& lock, bool attempted) {
  // The exchanges are short (one TCP round trip each); the poll step bounds what this adds to
  // the moment this node starts answering.
  constexpr std::chrono::milliseconds kStep{2};
  const auto start = std::chrono::steady_clock::now();
  auto settled = [this] {
    if (node_->joinsInFlight() == 0) {
      return true;
    }
    const auto members = node_->members();
    return std::any_of(members.begin(), members.end(), [this](const ml::MemberView& m) {
      return m.name != live_.self() && m.state == ml::NodeState::Alive;
    });
  };
  while (attempted && !stopping_ && !settled() &&
         std::chrono::steady_clock::now() - start < join_timeout_) {
    cv_.wait_for(lock, kStep, [this] { return stopping_; });
  }
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  const auto live = live_.live();
  log_.info("memberDiscovery", "joined",
            "memberlist joined: Layer 2 answers start with this membership",
            {log::num("members", static_cast<long long>(live.size())),
             log::num("wait_ms", static_cast<long long>(took.count()))});
  live_.markJoined();
}

bool MembershipSource::joinMissing() {
  if (!node_ || !pod_ips_) {
    return false;
  }
  const auto seeds = seedsToJoin(pod_ips_(), node_->members(), port_);
  if (seeds.empty()) {
    return false;  // nothing to join: no line, as MetalLB
  }
  std::string list;
  for (const auto& s : seeds) {
    list += (list.empty() ? "" : ",") + s;
  }
  log_.info("memberDiscovery", "join", "joining agent pods that are not members",
            {log::num("seeds", static_cast<long long>(seeds.size())), {"addresses", list}});
  node_->join(seeds);
  return true;
}

void MembershipSource::stop(std::chrono::milliseconds wait) {
  detach();
  if (!node_) {
    return;
  }
  log_.info("shutdown", "memberlist_leave", "leaving memberlist cluster");
  node_->leave(wait);
  log_.info("shutdown", "memberlist_left", "left memberlist cluster");
  node_.reset();
  log_.info("shutdown", "memberlist_stopped", "memberlist shutdown");
}

Result<std::unique_ptr<MembershipSource>> startMembership(const std::string& node,
                                                          const ml::MembershipOptions& options,
                                                          log::Logger& logger) {
  if (!options.enabled()) {
    logger.info("startup", "memberlist_disabled",
                "not starting fast dead node detection (memberlist), need ml-bindaddr / "
                "ml-labels config");
    logger.info("startup", "memberlist_disabled",
                "when memberlist is disabled, the speaker pods must run on all nodes");
    return std::unique_ptr<MembershipSource>();
  }
  return MembershipSource::create(node, options, logger);
}

}  // namespace ingot::agent
