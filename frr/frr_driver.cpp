// SPDX-License-Identifier: Apache-2.0
#include "frr/frr_driver.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

#include "frr/process.h"

namespace ingot::frr {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr std::string_view kLogOp = "frr-apply";
constexpr size_t kMessageChars = 2000;
constexpr std::string_view kNoOutput = "(no output)";
/// frr-reload.py prints this when vtysh rejects the file (a syntax error).
constexpr std::string_view kRejectedMarker = "failed to process new configuration";
/// kRefusedLineMarker is what vtysh prints when a daemon refuses a line it parsed (a value out of
/// the daemon's range, e.g. an 81-byte TCP-MD5 key): `--test` cannot see it, only the reload.
constexpr std::string_view kRefusedLineMarker = "Failure to communicate[13]";

/// fail builds an error whose message cannot leak a password.
Error fail(ErrorCode code, const std::string& message) {
  return Error{code, retractPasswords(message)};
}

Error sysFail(const std::string& path, const char* what) {
  return fail(ErrorCode::Unavailable, path + ": " + what + ": " + std::strerror(errno));
}

std::string configPath(const FrrDriverOptions& o) {
  return o.workdir + "/frr.conf";
}

/// ensureDir creates every missing component of dir with mode 0700.
Result<void> ensureDir(const std::string& dir) {
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    const std::string part = dir.substr(0, pos);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return sysFail(part, "mkdir");
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return sysFail(dir, "stat");
  if (!S_ISDIR(st.st_mode)) return fail(ErrorCode::InvalidArgument, dir + ": not a directory");
  return {};
}

/// writeConfig replaces <workdir>/frr.conf (mode 0600) through a temporary file and rename, so
/// frr-reload.py never reads a half-written file.
Result<void> writeConfig(const FrrDriverOptions& o, const std::string& text) {
  if (o.workdir.empty()) return fail(ErrorCode::InvalidArgument, "frr workdir is not set");
  if (auto d = ensureDir(o.workdir); !d) return d.error();
  const std::string path = configPath(o);
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return sysFail(tmp, "open");
  bool ok = ::fchmod(fd, 0600) == 0;
  for (size_t done = 0; ok && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    done += ok ? static_cast<size_t>(n) : 0;
  }
  if (!ok) {
    const Error e = sysFail(tmp, "write");
    ::close(fd);
    ::unlink(tmp.c_str());
    return e;
  }
  if (::close(fd) != 0) return sysFail(tmp, "close");
  if (::rename(tmp.c_str(), path.c_str()) != 0) return sysFail(path, "rename");
  return {};
}

std::vector<std::string> reloadArgv(const FrrDriverOptions& o, const char* mode) {
  std::vector<std::string> argv = {o.python,    o.reload_script, mode,       "--stdout",
                                   "--confdir", o.workdir,       "--rundir", o.workdir};
  if (!o.pathspace.empty()) {
    argv.push_back("-N");
    argv.push_back(o.pathspace);
  }
  argv.push_back(configPath(o));
  return argv;
}

bool isInfoLogLine(std::string_view line) {
  // "2026-01-01 10:00:00,123  INFO: ..." (frr-reload.py's logging format)
  return line.size() > 24 && std::isdigit(static_cast<unsigned char>(line[0])) != 0 &&
         line[4] == '-' && line.find(" INFO: ") != std::string_view::npos;
}

bool isListingLine(std::string_view line) {
  // The pformat() listing of the lines a reload sends: "['router bgp 1\n'," / " 'exit\n']".
  const size_t i = line.find_first_not_of(" [");
  return i != std::string_view::npos && (line[i] == '\'' || line[i] == '"');
}

/// toolMessage keeps what explains a failure in frr-reload.py or vtysh output (errors, warnings,
/// vtysh's own complaints) without the INFO chatter and colour codes, last kMessageChars only.
std::string toolMessage(const std::string& text) {
  std::string kept;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    for (size_t esc; (esc = line.find('\x1b')) != std::string::npos;) {
      const size_t m = line.find('m', esc);
      line.erase(esc, m == std::string::npos ? std::string::npos : m - esc + 1);
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (isInfoLogLine(line) || isListingLine(line)) continue;
    if (!kept.empty()) kept += " | ";
    kept += line;
  }
  if (kept.size() > kMessageChars) kept = "…" + kept.substr(kept.size() - kMessageChars);
  return kept.empty() ? std::string(kNoOutput) : kept;
}

/// runTest runs `frr-reload.py --test` on the file already written and parses its delta.
Result<ReloadDelta> runTest(const FrrDriverOptions& o) {
  if (::access(o.reload_script.c_str(), R_OK) != 0) {
    return fail(ErrorCode::NotFound, "frr-reload.py " + o.reload_script + ": " +
                                         std::strerror(errno) +
                                         " (FRR's frr-pythontools; --frr-reload-script)");
  }
  const auto argv = reloadArgv(o, "--test");
  auto r = runCommand(argv, o.command_timeout, o.group_record);
  if (!r) return fail(r.error().code, r.error().message);
  if (r->exit_status != 0) {
    // stderr holds the reason; stdout then holds a meaningless delta against an empty file.
    std::string detail = toolMessage(r->err);
    if (detail == kNoOutput) detail = toolMessage(r->out);
    const bool rejected = r->err.find(kRejectedMarker) != std::string::npos;
    return fail(rejected ? ErrorCode::InvalidArgument : ErrorCode::Unavailable,
                configPath(o) + ": `" + commandLine(argv) + "` exited " +
                    std::to_string(r->exit_status) +
                    (rejected ? " (FRR rejected the file, nothing applied): " : ": ") + detail);
  }
  return parseTestOutput(r->out);
}

void logPass(const FrrDriverOptions& o,
             int pass,
             const CommandOutput& reload,
             const ReloadDelta& after) {
  if (o.logger == nullptr) return;
  const auto level = reload.exit_status == 0 ? log::Level::Info : log::Level::Warn;
  const std::string msg = reload.exit_status == 0
                              ? "frr-reload.py --reload pass done"
                              : retractPasswords(
                                    "frr-reload.py --reload exited non-zero (judged "
                                    "by the next --test): " +
                                    toolMessage(reload.out + "\n" + reload.err));
  o.logger->log(level, kLogOp, "reload", msg,
                {{"workdir", o.workdir},
                 log::num("pass", pass),
                 log::num("exit_status", reload.exit_status),
                 log::num("remaining", static_cast<long long>(after.to_add.size()) +
                                           static_cast<long long>(after.to_delete.size()))});
}

Error notConverged(const FrrDriverOptions& o,
                   const ReloadDelta& left,
                   int passes,
                   const CommandOutput& last_reload) {
  // Retract line by line first: a password is a whole word of its line, while in the joined
  // description it would run into the "]" and ";" around it.
  ReloadDelta shown = left;
  for (auto* lines : {&shown.to_delete, &shown.to_add}) {
    for (auto& line : *lines) line = retractPasswords(line);
  }
  std::string msg = configPath(o) + ": FRR did not converge after " + std::to_string(passes) +
                    " reload pass(es); still to " + describeDelta(shown);
  // A daemon that refused a line refuses it on every pass: the configuration is rejected (the
  // caller may isolate what it refuses), not FRR unavailable.
  const bool refused = passes > 0 && (last_reload.out + last_reload.err).find(kRefusedLineMarker) !=
                                         std::string::npos;
  if (passes > 0) {
    msg += "; last `frr-reload.py --reload` exited " + std::to_string(last_reload.exit_status) +
           (refused ? " (FRR refused a line)" : "") + ": " +
           toolMessage(last_reload.out + "\n" + last_reload.err);
  }
  return fail(refused ? ErrorCode::InvalidArgument : ErrorCode::Unavailable, msg);
}

}  // namespace

FrrDriver::FrrDriver(FrrDriverOptions options) : options_(std::move(options)) {
  if (options_.group_record.empty() && !options_.workdir.empty()) {
    options_.group_record = options_.workdir + "/reload.pgid";
  }
  if (!options_.group_record.empty() && killRecordedGroup(options_.group_record) &&
      options_.logger != nullptr) {
    options_.logger->warn(std::string(kLogOp), "reload_killed",
                          "killed an frr-reload.py left running by a previous agent", {});
  }
}

Result<ReloadDelta> FrrDriver::test(const std::string& text) {
  if (auto w = writeConfig(options_, text); !w) return w.error();
  return runTest(options_);
}

Result<ApplyReport> FrrDriver::apply(const std::string& text) {
  auto delta = test(text);
  if (!delta) return delta.error();
  return reloadTested(std::move(*delta));
}

Result<ApplyReport> FrrDriver::reloadTested(ReloadDelta first) {
  const auto start = Clock::now();
  Result<ReloadDelta> delta = std::move(first);
  ApplyReport report;
  report.lines_added = delta->to_add.size();
  report.lines_removed = delta->to_delete.size();
  CommandOutput last_reload;
  // The reload's exit status is not trusted (a reload adding graceful-restart exits 1 although
  // applied; removing BFD takes two passes): the next --test decides.
  while (!delta->empty() && report.passes < options_.max_passes) {
    auto reload = runCommand(reloadArgv(options_, "--reload"), options_.command_timeout,
                             options_.group_record);
    if (!reload) return fail(reload.error().code, reload.error().message);
    ++report.passes;
    last_reload = std::move(*reload);
    delta = runTest(options_);
    if (!delta) return delta.error();
    logPass(options_, report.passes, last_reload, *delta);
  }
  if (!delta->empty()) return notConverged(options_, *delta, report.passes, last_reload);
  report.elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  return report;
}

Result<std::string> FrrDriver::runningConfig() {
  std::vector<std::string> argv = {options_.vtysh};
  if (!options_.workdir.empty()) {
    // vtysh reads <config_dir>[/<pathspace>]/vtysh.conf, never /etc/frr (as frr-reload.py does).
    argv.push_back("--config_dir");
    argv.push_back(options_.workdir);
  }
  if (!options_.pathspace.empty()) {
    argv.push_back("-N");
    argv.push_back(options_.pathspace);
  }
  argv.push_back("-c");
  argv.push_back("show running-config");
  auto r = runCommand(argv, options_.command_timeout, options_.group_record);
  if (!r) return fail(r.error().code, r.error().message);
  if (r->exit_status != 0) {
    return fail(ErrorCode::Unavailable, "`" + commandLine(argv) + "` exited " +
                                            std::to_string(r->exit_status) + ": " +
                                            toolMessage(r->err + "\n" + r->out));
  }
  return std::move(r->out);
}

Result<ApplyReport> FrrApplier::apply(const std::string& text) {
  if (has_last_good_ && text == last_good_) return ApplyReport{};
  auto checked = driver_.test(text);
  if (!checked) return checked.error();
  auto applied = driver_.reloadTested(std::move(*checked));
  if (applied) {
    last_good_ = text;
    has_last_good_ = true;
    return applied;
  }
  if (!has_last_good_) return applied;
  Error error = applied.error();
  auto restored = driver_.apply(last_good_);
  if (log::Logger* logger = driver_.options().logger; logger != nullptr) {
    logger->log(restored ? log::Level::Info : log::Level::Error, kLogOp, "restore",
                restored ? "re-applied the last good configuration after a failed apply"
                         : "re-applying the last good configuration failed too",
                {{"workdir", driver_.options().workdir}});
  }
  if (!restored) {
    error.message +=
        "; re-applying the last good configuration failed too: " + restored.error().message;
  }
  return error;
}

}  // namespace ingot::frr
