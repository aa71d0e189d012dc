// SPDX-License-Identifier: Apache-2.0
// Three ways to push BGP changes into a node's FRR 8.4, side by side in one run, on a ToR and a
// node in network namespaces this program creates (eBGP, BFD 300 ms × 3, hold 9 s; see
// frr/tests/frr_lab.h), with 10 sentinel prefixes that stay announced throughout:
//   S1  today's shape (per-prefix prefix-list entries per neighbor, frrgen/render.h) applied with
//       frr-reload.py (frr/ FrrDriver: --test, --reload, --test);
//   S2  the same text, but the caller sends the line delta in one `vtysh -f` (prefix-lists first);
//   S3  the compact shape (frrgen/compact.h) applied by frr/'s IncrementalApplier (structural
//       delta through a persistent vtysh, `vtysh -f` above 64 lines, read back after each apply).
// For each operation: apply seconds, seconds until the ToR holds exactly the expected number of
// prefixes, BGP sessions re-established at the ToR meanwhile, and the fewest sentinels the ToR held
// (a watcher polls it every ~100 ms). S1 and S2 stop at 1,000 prefixes (5,000 takes them 15–20
// minutes). Every namespace and daemon is removed at the end; waits are bounded. (Killed by a
// signal it cannot clean up: FRR's daemons drop privileges, which clears PR_SET_PDEATHSIG; remove
// the namespaces igt<pid>/ign<pid> and stop their daemons by hand.)
//
// Run (root): build/bench/ingot_bench_bgp_strategies [--max-s12 N] [--only S3]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/main_guard.h"
#include "frr/frr_driver.h"
#include "frr/incremental.h"
#include "frr/tests/frr_lab.h"
#include "frrgen/compact.h"
#include "frrgen/render.h"

namespace {

using namespace ingot;
using namespace ingot::frr;
using namespace ingot::frr::testing;
using Clock = std::chrono::steady_clock;

constexpr int kSentinels = 10;
constexpr int kTorWaitTries = 9000;  // 100 ms each: 15 minutes

std::string prefixAt(int base, int i) {
  return "10." + std::to_string(base + i / 62500) + "." + std::to_string(i / 250 % 250) + "." +
         std::to_string(i % 250 + 1) + "/32";
}

/// nodeModel: the sentinels plus n service prefixes, all to the ToR with one community.
frrgen::Model nodeModel(int n) {
  frrgen::Router r = nodeRouter();
  frrgen::Neighbor& tor = r.neighbors[0];
  for (int i = 0; i < kSentinels + n; ++i) {
    const std::string p = i < kSentinels ? prefixAt(200, i) : prefixAt(100, i - kSentinels);
    r.prefixes_v4.push_back(p);
    tor.outgoing_v4.append({p, 0, {"64512:100"}, {}});
  }
  std::sort(r.prefixes_v4.begin(), r.prefixes_v4.end());
  std::sort(tor.outgoing_v4.begin(), tor.outgoing_v4.end(),
            [](const auto& a, const auto& b) { return a.prefix < b.prefix; });
  frrgen::Model m;
  m.routers = {r};
  m.bfd_profiles = {labBfd()};
  return m;
}

/// Strategy applies a model to the node.
class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string apply(const frrgen::Model& m) = 0;  ///< "" or the error
};

class S1 final : public Strategy {
 public:
  explicit S1(FrrDriverOptions o) : driver_(std::move(o)) {}
  std::string apply(const frrgen::Model& m) override {
    auto r = driver_.apply(*frrgen::render(m, {}));
    return r ? "" : r.error().message;
  }

 private:
  FrrDriver driver_;
};

/// ContextLine is one configuration line with the lines that open its context.
using ContextLine = std::pair<std::vector<std::string>, std::string>;

std::vector<ContextLine> contextLines(const std::string& text) {
  std::vector<ContextLine> out;
  std::vector<std::pair<size_t, std::string>> stack;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos) {
      continue;
    }
    const std::string body = line.substr(indent);
    if (body == "!" || body == "exit" || body == "exit-address-family") {
      continue;
    }
    while (!stack.empty() && stack.back().first >= indent) {
      stack.pop_back();
    }
    std::vector<std::string> ctx;
    ctx.reserve(stack.size());
    for (const auto& s : stack) {
      ctx.push_back(s.second);
    }
    out.emplace_back(ctx, body);
    stack.emplace_back(indent, body);
  }
  return out;
}

/// S2 sends the line delta of today's shape in one `vtysh -f`: new top-level lines (prefix-list
/// entries) first, then new lines in their contexts, then removals in reverse.
class S2 final : public Strategy {
 public:
  S2(FrrDriverOptions o, FrrLab& lab) : driver_(std::move(o)), lab_(lab) {}
  std::string apply(const frrgen::Model& m) override {
    const std::string text = *frrgen::render(m, {});
    if (last_.empty()) {
      auto r = driver_.apply(text);
      last_ = text;
      return r ? "" : r.error().message;
    }
    const auto before = contextLines(last_);
    const auto after = contextLines(text);
    const std::set<ContextLine> old_set(before.begin(), before.end());
    const std::set<ContextLine> new_set(after.begin(), after.end());
    std::string delta;
    emit(delta, after, old_set, false);
    emit(delta, before, new_set, true);
    last_ = text;
    return lab_.configure(lab_.node(), delta, std::chrono::seconds(1800));
  }

 private:
  static void emit(std::string& out,
                   const std::vector<ContextLine>& lines,
                   const std::set<ContextLine>& other,
                   bool remove) {
    std::vector<const ContextLine*> changed;
    for (const auto& l : lines) {
      if (other.count(l) == 0) {
        changed.push_back(&l);
      }
    }
    // Adding: top-level lines first. Removing: nested lines (networks) first.
    std::stable_sort(changed.begin(), changed.end(), [remove](const auto* a, const auto* b) {
      return remove ? a->first.size() > b->first.size() : a->first.size() < b->first.size();
    });
    for (const auto* l : changed) {
      for (const auto& c : l->first) {
        out += c + "\n";
      }
      out += (remove ? "no " : "") + l->second + "\n";
      for (auto it = l->first.rbegin(); it != l->first.rend(); ++it) {
        out += it->rfind("address-family", 0) == 0 ? "exit-address-family\n" : "exit\n";
      }
    }
  }

  FrrDriver driver_;
  FrrLab& lab_;
  std::string last_;
};

class S3 final : public Strategy {
 public:
  S3(FrrDriverOptions o, FrrLab& lab) : driver_(o), reload_(driver_) {
    VtyshSessionOptions v;
    v.pathspace = lab.node();
    v.workdir = o.workdir;
    session_ = std::make_unique<VtyshSession>(v);
    applier_ = std::make_unique<IncrementalApplier>(*session_, reload_, frrgen::RenderOptions{});
  }
  std::string apply(const frrgen::Model& m) override {
    auto r = applier_->apply(*frrgen::compact(m));
    return r ? "" : r.error().message;
  }

 private:
  FrrDriver driver_;
  DriverReload reload_;
  std::unique_ptr<VtyshSession> session_;
  std::unique_ptr<IncrementalApplier> applier_;
};

/// Watcher polls the ToR: the fewest sentinels it held, and whether the session was down.
class Watcher {
 public:
  explicit Watcher(FrrLab& lab) : lab_(lab), thread_([this] { loop(); }) {}
  ~Watcher() {
    stop_ = true;
    thread_.join();
  }
  void resetWindow() {
    std::lock_guard<std::mutex> lock(mu_);
    min_sentinels_ = kSentinels;
    down_polls_ = 0;
  }
  int minSentinels() {
    std::lock_guard<std::mutex> lock(mu_);
    return min_sentinels_;
  }
  int downPolls() {
    std::lock_guard<std::mutex> lock(mu_);
    return down_polls_;
  }

 private:
  void loop() {
    while (!stop_) {
      auto r = runCommand({"ip", "-n", lab_.tor(), "-4", "route", "show", "root", "10.200.0.0/16"},
                          std::chrono::seconds(10));
      const int n = r ? static_cast<int>(std::count(r->out.begin(), r->out.end(), '\n')) : 0;
      const bool up =
          field(lab_, "show bgp neighbors 192.168.77.2 json", "bgpState") == "\"Established\"";
      {
        std::lock_guard<std::mutex> lock(mu_);
        min_sentinels_ = std::min(min_sentinels_, n);
        down_polls_ += up ? 0 : 1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

 public:
  /// field returns the raw JSON value of the first "name" in a ToR show command's output.
  static std::string field(FrrLab& lab, const std::string& command, const std::string& name) {
    const std::string j = lab.vtysh(lab.tor(), {command});
    const size_t at = j.find("\"" + name + "\":");
    if (at == std::string::npos) {
      return "";
    }
    size_t from = j.find_first_not_of(' ', at + name.size() + 3);
    return j.substr(from, j.find_first_of(",}\n", from) - from);
  }

 private:
  FrrLab& lab_;
  std::mutex mu_;
  int min_sentinels_ = kSentinels;
  int down_polls_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

int received(FrrLab& lab) {
  const std::string v = Watcher::field(lab, "show bgp ipv4 unicast summary json", "pfxRcd");
  return v.empty() ? -1 : std::atoi(v.c_str());
}

int established(FrrLab& lab) {
  const std::string v =
      Watcher::field(lab, "show bgp neighbors 192.168.77.2 json", "connectionsEstablished");
  return v.empty() ? 0 : std::atoi(v.c_str());
}

struct Row {
  std::string op;
  double apply_s = 0;
  double tor_s = -1;  ///< -1: the ToR never got there
  int resets = 0;
  int min_sentinels = kSentinels;
  std::string error;
};

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

Row runOp(Strategy& s, FrrLab& lab, Watcher& w, const std::string& name, int services) {
  Row row;
  row.op = name;
  w.resetWindow();
  const int before = established(lab);
  const auto start = Clock::now();
  row.error = s.apply(nodeModel(services));
  row.apply_s = secondsSince(start);
  if (FrrLab::waitFor([&] { return received(lab) == kSentinels + services; }, kTorWaitTries)) {
    row.tor_s = secondsSince(start);
  }
  row.resets = established(lab) - before;
  row.min_sentinels = w.minSentinels();
  return row;
}

std::string setUp(FrrLab& lab, Strategy& s) {
  if (auto e = lab.configure(lab.tor(), kTorConfig); !e.empty()) {
    return e;
  }
  if (auto e = s.apply(nodeModel(0)); !e.empty()) {
    return e;
  }
  if (!FrrLab::waitFor([&] { return received(lab) == kSentinels; }, 1200)) {
    return "the sentinels never reached the ToR";
  }
  return "";
}

std::vector<Row> runStrategy(const std::string& name, int max_s12) {
  FrrLab lab;
  if (auto e = lab.start(); !e.empty()) {
    return {{"setup", 0, -1, 0, 0, e}};
  }
  FrrDriverOptions o;
  o.pathspace = lab.node();
  o.workdir = lab.dir() + "/driver";
  o.command_timeout = std::chrono::seconds(1800);
  std::unique_ptr<Strategy> s;
  if (name == "S1") {
    s = std::make_unique<S1>(o);
  } else if (name == "S2") {
    s = std::make_unique<S2>(o, lab);
  } else {
    s = std::make_unique<S3>(o, lab);
  }
  if (auto e = setUp(lab, *s); !e.empty()) {
    return {{"setup", 0, -1, 0, 0, e}};
  }
  Watcher w(lab);
  const int n = name == "S3" ? 1000 : max_s12;
  std::vector<std::pair<std::string, int>> ops = {
      {"+" + std::to_string(n), n}, {"+1", n + 1}, {"-1", n}, {"-all", 0}};
  if (name == "S3") {
    ops.emplace_back("+5000", 5000);
    ops.emplace_back("-5000", 0);
  }
  std::vector<Row> rows;
  for (const auto& [op, services] : ops) {
    rows.push_back(runOp(*s, lab, w, op, services));
    std::fprintf(stderr, "%s %s: apply %.2f s, ToR %.2f s, resets %d, min sentinels %d %s\n",
                 name.c_str(), op.c_str(), rows.back().apply_s, rows.back().tor_s,
                 rows.back().resets, rows.back().min_sentinels, rows.back().error.c_str());
  }
  return rows;
}

/// benchMain runs the benchmark (main's arguments and exit status).
int benchMain(int argc, char** argv) {
  int max_s12 = 1000;
  std::vector<std::string> strategies = {"S1", "S2", "S3"};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--max-s12") == 0) {
      max_s12 = std::max(1, std::atoi(argv[i + 1]));
    } else if (std::strcmp(argv[i], "--only") == 0) {
      strategies = {argv[i + 1]};
    }
  }
  if (auto why = whyFrrLabCannotRun(); !why.empty()) {
    std::fprintf(stderr, "cannot run: %s\n", why.c_str());
    return 2;
  }
  std::printf(
      "| strategy | change | apply s | at the ToR s | sessions re-established | "
      "fewest sentinels (of %d) | error |\n|---|---|---|---|---|---|---|\n",
      kSentinels);
  for (const auto& name : strategies) {
    for (const auto& r : runStrategy(name, max_s12)) {
      std::printf("| %s | %s | %.2f | %s | %d | %d | %s |\n", name.c_str(), r.op.c_str(), r.apply_s,
                  r.tor_s < 0 ? "never" : std::to_string(r.tor_s).substr(0, 5).c_str(), r.resets,
                  r.min_sentinels, r.error.substr(0, 120).c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return ingot::bench::guardedMain(benchMain, argc, argv);
}
