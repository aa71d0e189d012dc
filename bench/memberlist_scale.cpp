// SPDX-License-Identifier: Apache-2.0
// Memberlist at scale on one machine: N memberlist::Node members in this process (one I/O
// thread each, real UDP and TCP sockets on 127.0.0.1, ports from the kernel), for Ingot's fast
// timing and Go's LAN timing (MetalLB's) one after the other. For each timing it prints:
//   - start: time until every member lists all N alive (members join as the agent does: each
//     joins every other member's address, or with --join one only the first member's);
//   - steady state: per-member UDP packets/s and bytes/s in and out (TransportCounters), TCP
//     push/pull exchanges/s, the size of one push/pull state, false suspicions and deaths, the
//     process's CPU per member;
//   - --kills times: a member stops (its sockets close, no leave message), time until every
//     survivor reported it dead (min / median / max over the survivors);
//   - --leaves times: a member leaves gracefully, the same.
// Figures only; nothing is asserted. Usage:
//   ingot_bench_memberlist_scale [--members 200] [--timing fast,lan] [--kills 3] [--leaves 3]
//                                [--steady 20] [--settle 5] [--join all|one] [--bound 180]
//                                [--max-waiting-joins N]   (joins that may wait for a stream
//                                                           beyond max_connections; default 0)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <vector>

#include "agent/memberlist/core/messages.h"
#include "agent/memberlist/transport.h"

namespace ml = ingot::agent::memberlist;

namespace {

using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

struct Options {
  int members = 200;
  std::vector<std::string> timings = {"fast", "lan"};
  int kills = 3;
  int leaves = 3;
  double steady_s = 20;
  double settle_s = 5;  ///< before the steady window: the join broadcasts run out
  std::string join = "all";
  double bound_s = 180;
  size_t max_waiting_joins = ml::TransportConfig{}.max_waiting_joins;
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "memberlist_scale: %s\n", what.c_str());
  std::exit(1);
}

std::vector<std::string> splitComma(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    out.push_back(part);
  }
  return out;
}

Options parseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--members") {
      o.members = std::atoi(value.c_str());
    } else if (flag == "--timing") {
      o.timings = splitComma(value);
    } else if (flag == "--kills") {
      o.kills = std::atoi(value.c_str());
    } else if (flag == "--leaves") {
      o.leaves = std::atoi(value.c_str());
    } else if (flag == "--steady") {
      o.steady_s = std::atof(value.c_str());
    } else if (flag == "--settle") {
      o.settle_s = std::atof(value.c_str());
    } else if (flag == "--join") {
      o.join = value;
    } else if (flag == "--bound") {
      o.bound_s = std::atof(value.c_str());
    } else if (flag == "--max-waiting-joins") {
      o.max_waiting_joins = static_cast<size_t>(std::atoll(value.c_str()));
    } else {
      die("unknown flag " + flag);
    }
  }
  if (o.members < 3 || o.kills + o.leaves > o.members - 2 || (o.join != "all" && o.join != "one")) {
    die("--members must be at least 3 and exceed --kills + --leaves + 1; --join all or one");
  }
  return o;
}

ml::Timing timingNamed(const std::string& name) {
  if (name == "fast") {
    return ml::Timing::fast();
  }
  if (name == "lan") {
    return ml::Timing::lan();
  }
  die("unknown timing " + name + " (fast or lan)");
}

double cpuSeconds() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

double loadAverage() {
  double load[1] = {0};
  return getloadavg(load, 1) == 1 ? load[0] : -1;
}

/// pushPullScale is memberlist's stretch of the push/pull interval above 32 members, which
/// agent/memberlist applies as Go's memberlist does (Membership::pushPullInterval).
double pushPullScale(size_t n) {
  return n <= 32 ? 1.0 : std::ceil(std::log2(static_cast<double>(n)) - std::log2(32.0)) + 1.0;
}

/// Stats prints min / median / max of a sample.
std::string stats(std::vector<double> v, double scale, const char* unit) {
  if (v.empty()) {
    return "none";
  }
  std::sort(v.begin(), v.end());
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.0f / %.0f / %.0f %s", v.front() * scale,
                v[v.size() / 2] * scale, v.back() * scale, unit);
  return buf;
}

/// Recorder keeps, per observing member, when it first reported each member gone. Each
/// observer has its own lock: the callback runs on that member's I/O thread, and one lock for
/// all would couple the members' threads.
class Recorder {
 public:
  explicit Recorder(size_t n) : gone_(n) {}

  void onEvent(size_t observer, const ml::Outbox::Event& e) {
    if (e.kind != ml::Outbox::Event::Kind::Leave) {
      return;
    }
    PerObserver& mine = gone_[observer];
    std::lock_guard lock(mine.mu);
    mine.first.try_emplace(e.name, Gone{Clock::now(), e.left});
  }

  /// seconds returns, for each observer in `who`, how long after t0 it reported `name` gone
  /// (left gracefully or not, as `left` says); nothing when one has not yet.
  std::optional<std::vector<double>> seconds(const std::vector<size_t>& who,
                                             const std::string& name,
                                             bool left,
                                             Clock::time_point t0) {
    std::vector<double> out;
    for (size_t i : who) {
      PerObserver& theirs = gone_[i];
      std::lock_guard lock(theirs.mu);
      auto it = theirs.first.find(name);
      if (it == theirs.first.end() || it->second.left != left) {
        return std::nullopt;
      }
      out.push_back(Seconds(it->second.at - t0).count());
    }
    return out;
  }

 private:
  struct Gone {
    Clock::time_point at;
    bool left = false;
  };
  struct PerObserver {
    std::mutex mu;
    std::map<std::string, Gone> first;
  };
  std::vector<PerObserver> gone_;
};

/// Cluster is N members in this process; a stopped member's slot is empty.
class Cluster {
 public:
  Cluster(const ml::Timing& timing, int n, size_t max_waiting_joins)
      : logger_(ingot::log::Level::Error), recorder_(static_cast<size_t>(n)), timing_(timing) {
    for (int i = 0; i < n; ++i) {
      ml::TransportConfig cfg;
      cfg.name = name(i);
      cfg.port = 0;
      cfg.timing = timing;
      cfg.max_waiting_joins = max_waiting_joins;
      cfg.seed = static_cast<uint32_t>(i + 1);
      const auto at = static_cast<size_t>(i);
      auto node = ml::Node::start(
          cfg, &logger_, [this, at](const ml::Outbox::Event& e) { recorder_.onEvent(at, e); });
      if (!node) {
        die("start " + cfg.name + ": " + node.error().message);
      }
      nodes_.push_back(std::move(*node));
    }
  }

  static std::string name(int i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "worker-node-%04d", i);
    return buf;
  }
  std::string address(size_t i) const { return "127.0.0.1:" + std::to_string(nodes_[i]->port()); }
  size_t size() const { return nodes_.size(); }
  ml::Node* at(size_t i) const { return nodes_[i].get(); }
  Recorder& recorder() { return recorder_; }
  const ml::Timing& timing() const { return timing_; }
  void stop(size_t i) { nodes_[i].reset(); }

  /// joinMissing: each member joins the members it does not list yet (matched by port, all on
  /// 127.0.0.1), as the agent joins the agent pods that are not members; with `all` false only
  /// the first member is a seed. Returns how many members started a join.
  size_t joinMissing(bool all) {
    size_t joining = 0;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (!nodes_[i]) {
        continue;
      }
      std::set<uint16_t> known;
      for (const ml::MemberView& m : nodes_[i]->members()) {
        known.insert(m.addr.port);
      }
      std::vector<std::string> seeds;
      for (size_t j = 0; j < (all ? nodes_.size() : 1); ++j) {
        if (j != i && nodes_[j] && known.count(nodes_[j]->port()) == 0) {
          seeds.push_back(address(j));
        }
      }
      if (!seeds.empty()) {
        nodes_[i]->join(seeds);
        ++joining;
      }
    }
    return joining;
  }

  /// aliveSeen is, per running member, how many members it lists alive.
  std::vector<size_t> aliveSeen() const {
    std::vector<size_t> out;
    for (const auto& node : nodes_) {
      if (node) {
        const auto members = node->members();
        out.push_back(
            static_cast<size_t>(std::count_if(members.begin(), members.end(), [](const auto& m) {
              return m.state == ml::NodeState::Alive;
            })));
      }
    }
    return out;
  }

  /// everyoneSees is true when every running member lists exactly `want` members alive.
  bool everyoneSees(size_t want) const {
    const auto seen = aliveSeen();
    return std::all_of(seen.begin(), seen.end(), [want](size_t k) { return k == want; });
  }

  std::vector<size_t> running() const {
    std::vector<size_t> out;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i]) {
        out.push_back(i);
      }
    }
    return out;
  }

 private:
  ingot::log::Logger logger_;
  Recorder recorder_;
  ml::Timing timing_;
  std::vector<std::unique_ptr<ml::Node>> nodes_;
};

/// waitUntil polls pred every 100 ms, calls progress every 5 s, and ends the bench after bound_s.
template <typename Pred>
double waitUntil(Pred pred,
                 double bound_s,
                 const std::string& what,
                 const std::function<void(double)>& progress = {}) {
  const auto t0 = Clock::now();
  double next_report = 5;
  while (!pred()) {
    const double waited = Seconds(Clock::now() - t0).count();
    if (progress && waited >= next_report) {
      progress(waited);
      next_report += 5;
    }
    if (waited > bound_s) {
      die(what + " not within " + std::to_string(static_cast<int>(bound_s)) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Seconds(Clock::now() - t0).count();
}

/// progress prints what the members see while they converge.
void progress(const Cluster& c, double waited) {
  std::vector<double> seen;
  for (size_t k : c.aliveSeen()) {
    seen.push_back(static_cast<double>(k));
  }
  uint64_t susp = 0;
  uint64_t dead = 0;
  uint64_t refused = 0;
  uint64_t timeouts = 0;
  for (size_t i : c.running()) {
    const auto m = c.at(i)->membershipCounters();
    const auto t = c.at(i)->counters();
    susp += m.suspicions;
    dead += m.deaths;
    refused += t.tcp_refused;
    timeouts += t.tcp_timeouts;
  }
  std::printf(
      "    %.0f s: members listed alive %s; suspicions %llu, deaths %llu, TCP refused %llu, "
      "timeouts %llu; load %.1f\n",
      waited, stats(seen, 1, "").c_str(), static_cast<unsigned long long>(susp),
      static_cast<unsigned long long>(dead), static_cast<unsigned long long>(refused),
      static_cast<unsigned long long>(timeouts), loadAverage());
  std::fflush(stdout);
}

/// pushPullBytes is the plaintext size of the full state one member sends in a push/pull (the
/// table as the first running member holds it; no metadata, as MetalLB's speakers).
size_t pushPullBytes(const Cluster& c) {
  std::vector<ml::PushNodeState> states;
  for (const ml::MemberView& m : c.at(c.running().front())->members()) {
    states.push_back(
        {m.name, m.addr.ip, m.addr.port, {}, m.incarnation, m.state, ml::protocolVersions()});
  }
  return ml::encodePushPull(states, false).size();
}

struct Totals {
  ml::TransportCounters t;
  uint64_t suspicions = 0;
  uint64_t deaths = 0;
  double cpu = 0;
  Clock::time_point at;
};

/// perMember sums each member's counters (running members only; none stops during the window).
std::vector<Totals> perMember(const Cluster& c) {
  std::vector<Totals> out;
  for (size_t i : c.running()) {
    Totals x;
    x.t = c.at(i)->counters();
    const auto m = c.at(i)->membershipCounters();
    x.suspicions = m.suspicions;
    x.deaths = m.deaths;
    out.push_back(x);
  }
  return out;
}

/// Steady is what the projection needs from the steady-state window (per member, medians).
struct Steady {
  double pkt_out = 0;
  double bytes_out = 0;
  double state_bytes_per_member = 0;
};

Steady steadyState(Cluster& c, double window_s) {
  const auto before = perMember(c);
  const double cpu0 = cpuSeconds();
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(Seconds(window_s));
  const auto after = perMember(c);
  const double span = Seconds(Clock::now() - t0).count();
  const double cpu = cpuSeconds() - cpu0;
  std::vector<double> pin, pout, bin, bout;
  double tcp = 0;
  uint64_t susp = 0;
  uint64_t dead = 0;
  for (size_t i = 0; i < after.size(); ++i) {
    const auto& a = after[i].t;
    const auto& b = before[i].t;
    pin.push_back(static_cast<double>(a.udp_in - b.udp_in) / span);
    pout.push_back(static_cast<double>(a.udp_out - b.udp_out) / span);
    bin.push_back(static_cast<double>(a.udp_bytes_in - b.udp_bytes_in) / span);
    bout.push_back(static_cast<double>(a.udp_bytes_out - b.udp_bytes_out) / span);
    tcp += static_cast<double>(a.tcp_connected - b.tcp_connected) / span;
    susp += after[i].suspicions - before[i].suspicions;
    dead += after[i].deaths - before[i].deaths;
  }
  const auto n = static_cast<double>(after.size());
  std::printf(
      "  steady %.0f s, per member (min / median / max): UDP in %s, out %s; in %s, out %s\n", span,
      stats(pin, 1, "pkt/s").c_str(), stats(pout, 1, "pkt/s").c_str(), stats(bin, 1, "B/s").c_str(),
      stats(bout, 1, "B/s").c_str());
  std::printf(
      "  steady: TCP push/pulls started %.2f/s per member; false suspicions %llu, false deaths "
      "%llu (all members); process CPU %.2f s = %.1f ms/s per member; load %.1f\n",
      tcp / n, static_cast<unsigned long long>(susp), static_cast<unsigned long long>(dead), cpu,
      cpu / span / n * 1000, loadAverage());
  const size_t state = pushPullBytes(c);
  const double interval = Seconds(c.timing().push_pull_interval).count() * pushPullScale(c.size());
  std::printf(
      "  steady: one push/pull state %zu B; each member starts an exchange every %.0f s and is "
      "picked for one as often on average: ~%.0f B/s TCP in and as much out per member\n",
      state, interval, 2.0 * static_cast<double>(state) / interval);
  std::sort(pout.begin(), pout.end());
  std::sort(bout.begin(), bout.end());
  return {pout[pout.size() / 2], bout[bout.size() / 2],
          static_cast<double>(state) / static_cast<double>(c.size())};
}

}  // namespace

namespace {

/// projection prints, for this size and for 1,000 and 5,000 members, what the rules of
/// agent/memberlist give: suspicion timeout (probe.cpp/membership.cpp: min = suspicion_mult ×
/// max(1, log10 n) × probe_interval, max = min × suspicion_max_timeout_mult, shrinking to min
/// with suspicion_mult − 2 confirmations), retransmissions per broadcast (retransmit_mult ×
/// ceil(log10(n + 1))), epidemic rounds to reach n (ceil(log(n) / log(1 + gossip_nodes))), a
/// detection estimate (one probe interval until someone probes the dead member, one for the
/// probe to fail, the suspicion timeout, the rounds), UDP per member (constant: measured), and
/// push/pull per member (its state, bytes per member × n, sent and received once for its own
/// exchange and once for the one it is picked for, per interval, stretched above 32 members).
void projection(const ml::Timing& t, const Steady& m, int measured) {
  const double probe = Seconds(t.probe_interval).count();
  const double gossip = Seconds(t.gossip_interval).count();
  const double push_pull = Seconds(t.push_pull_interval).count();
  for (const int n : {measured, 1000, 5000}) {
    const auto nd = static_cast<double>(n);
    const double susp_min = t.suspicion_mult * std::max(1.0, std::log10(nd)) * probe;
    const double susp_max = susp_min * t.suspicion_max_timeout_mult;
    const int k = std::max(0, t.suspicion_mult - 2);
    const int limit = t.retransmit_mult * static_cast<int>(std::ceil(std::log10(nd + 1)));
    const double rounds = std::ceil(std::log(nd) / std::log(1.0 + t.gossip_nodes));
    const double detect = 2 * probe + susp_min + rounds * gossip;
    const double state = m.state_bytes_per_member * nd;
    const double tcp = 2 * state / push_pull;
    const double stretch = pushPullScale(static_cast<size_t>(n));
    std::printf(
        "  projection n=%d: suspicion %.2f s (max %.2f s, %d confirmations to shrink); %d "
        "transmits per broadcast; %.0f gossip rounds; dead seen by all ~%.1f s; UDP %.0f pkt/s "
        "%.0f B/s out per member; push/pull state %.0f KB every %.0f s, TCP ~%.1f KB/s each way "
        "per member (without the stretch: ~%.1f KB/s)\n",
        n, susp_min, k < 1 ? susp_min : susp_max, k, limit, rounds, detect, m.pkt_out, m.bytes_out,
        state / 1000, push_pull * stretch, tcp / 1000 / stretch, tcp / 1000);
  }
  std::fflush(stdout);
}

/// departure stops member `victim` (gracefully: leave first) and times until every other
/// running member reported it gone.
std::vector<double> departure(Cluster& c, size_t victim, bool graceful, double bound_s) {
  const std::string name = Cluster::name(static_cast<int>(victim));
  const auto t0 = Clock::now();
  if (graceful) {
    c.at(victim)->leave(std::chrono::milliseconds(1000));
  }
  c.stop(victim);
  const auto survivors = c.running();
  std::vector<double> took;
  waitUntil(
      [&] {
        auto got = c.recorder().seconds(survivors, name, graceful, t0);
        if (got) {
          took = *got;
        }
        return got.has_value();
      },
      bound_s, std::string("every survivor seeing ") + name + (graceful ? " leave" : " dead"));
  return took;
}

void departures(Cluster& c, const Options& o) {
  size_t next = c.size() - 1;
  for (int round = 0; round < o.kills + o.leaves; ++round) {
    const bool graceful = round >= o.kills;
    const auto took = departure(c, next--, graceful, o.bound_s);
    std::printf(
        "  %s %d: every survivor (%zu) saw it %s after %s (min / median / max); load %.1f\n",
        graceful ? "leave" : "kill", graceful ? round - o.kills + 1 : round + 1, took.size(),
        graceful ? "leave" : "dead", stats(took, 1000, "ms").c_str(), loadAverage());
    std::fflush(stdout);
  }
}

void runTiming(const std::string& timing_name, const Options& o) {
  const ml::Timing timing = timingNamed(timing_name);
  std::printf(
      "%s: %d members, probe %lld ms, gossip %lld ms to %d, suspicion mult %d (max x%d), "
      "push/pull %lld s, join %s, max waiting joins %zu; load %.1f\n",
      timing_name.c_str(), o.members, static_cast<long long>(timing.probe_interval.count()),
      static_cast<long long>(timing.gossip_interval.count()), timing.gossip_nodes,
      timing.suspicion_mult, timing.suspicion_max_timeout_mult,
      static_cast<long long>(timing.push_pull_interval.count() / 1000), o.join.c_str(),
      o.max_waiting_joins, loadAverage());
  std::fflush(stdout);
  const auto t0 = Clock::now();
  Cluster c(timing, o.members, o.max_waiting_joins);
  const double started = Seconds(Clock::now() - t0).count();
  // The agent retries the joins still missing after 1 s, 2 s, 4 s … (at most a minute apart).
  const bool all = o.join == "all";
  size_t joins = 0;
  auto retry_at = Clock::now();
  auto retry = std::chrono::seconds(1);
  const auto n = static_cast<size_t>(o.members);
  const double converged = waitUntil(
      [&] {
        if (Clock::now() >= retry_at) {
          joins += c.joinMissing(all);
          retry_at = Clock::now() + retry;
          retry = std::min(retry * 2, std::chrono::seconds(60));
        }
        return c.everyoneSees(n);
      },
      o.bound_s, "every member seeing all alive", [&](double waited) { progress(c, waited); });
  uint64_t refused = 0;
  uint64_t waited = 0;
  for (size_t i : c.running()) {
    refused += c.at(i)->counters().tcp_refused;
    waited += c.at(i)->counters().tcp_waited;
  }
  std::printf(
      "  start: %d members bound in %.2f s; every member lists all alive %.2f s after "
      "the joins began (%zu join calls, retried after 1, 2, 4 … s; TCP streams refused %llu, "
      "joins that waited for a stream %llu); load %.1f\n",
      o.members, started, converged, joins, static_cast<unsigned long long>(refused),
      static_cast<unsigned long long>(waited), loadAverage());
  std::fflush(stdout);
  std::this_thread::sleep_for(Seconds(o.settle_s));
  const Steady steady = steadyState(c, o.steady_s);
  projection(timing, steady, o.members);
  std::fflush(stdout);
  departures(c, o);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parseArgs(argc, argv);
  std::printf("memberlist_scale: %d members in one process on 127.0.0.1, %u CPUs\n", o.members,
              std::thread::hardware_concurrency());
  for (const std::string& t : o.timings) {
    runTiming(t, o);
  }
  return 0;
}
