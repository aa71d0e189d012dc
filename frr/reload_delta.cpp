// SPDX-License-Identifier: Apache-2.0
// frr-reload.py --test output parsing and the password retraction every message goes through.
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "frr/frr_driver.h"

namespace ingot::frr {
namespace {

constexpr std::string_view kDeleteHeader = "Lines To Delete";
constexpr std::string_view kAddHeader = "Lines To Add";
constexpr std::string_view kPasswordWord = "password";
constexpr std::string_view kRetracted = "<retracted>";

std::string_view trimRight(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) {
    s.remove_suffix(1);
  }
  return s;
}

std::string_view trimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

/// isNoise: `no hostname <uts name>` is printed on every run when the file has no hostname line
/// (FRR shows the host's UTS name, which a vtysh command cannot change), so it never converges.
bool isNoise(const std::string& command) {
  constexpr std::string_view kPrefix = "no hostname ";
  if (command.rfind(kPrefix, 0) != 0 || command.size() == kPrefix.size()) return false;
  return command.find_first_of(" \t/", kPrefix.size()) == std::string::npos;
}

bool isRule(std::string_view line) {
  return !line.empty() && line.find_first_not_of('=') == std::string_view::npos;
}

/// Section collects one section's commands: a command starts at every unindented line and
/// continues over the indented lines after it (its contexts printed first, one level each).
struct Section {
  std::vector<std::string>* out = nullptr;
  std::string command;

  void flush() {
    if (out != nullptr && !command.empty() && !isNoise(command)) out->push_back(command);
    command.clear();
  }
  void add(std::string_view line) {
    const bool nested = line.front() == ' ' || line.front() == '\t';
    if (!nested) flush();
    if (!command.empty()) command += " / ";
    command += trimLeft(line);
  }
};

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
}

void appendSection(std::string& out,
                   const char* name,
                   const std::vector<std::string>& lines,
                   size_t limit) {
  out += name;
  out += " [";
  for (size_t i = 0; i < lines.size() && i < limit; ++i) {
    if (i > 0) out += "; ";
    out += lines[i];
  }
  if (lines.size() > limit) out += "; … (+" + std::to_string(lines.size() - limit) + " more)";
  out += "]";
}

}  // namespace

ReloadDelta parseTestOutput(const std::string& text) {
  ReloadDelta delta;
  Section section;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line = trimRight(std::string_view(text).substr(start, end - start));
    start = end + 1;
    if (line == kDeleteHeader || line == kAddHeader) {
      section.flush();
      section.out = line == kDeleteHeader ? &delta.to_delete : &delta.to_add;
      continue;
    }
    // Text before the first header (log lines) belongs to no section.
    if (line.empty() || isRule(line) || section.out == nullptr) continue;
    section.add(line);
  }
  section.flush();
  return delta;
}

std::string describeDelta(const ReloadDelta& delta, size_t limit) {
  std::string out;
  appendSection(out, "delete", delta.to_delete, limit);
  out += ' ';
  appendSection(out, "add", delta.to_add, limit);
  return out;
}

std::string retractPasswords(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const size_t hit = text.find(kPasswordWord, i);
    if (hit == std::string_view::npos) break;
    size_t pos = hit + kPasswordWord.size();
    const bool word = (hit == 0 || !isWordChar(text[hit - 1])) && pos < text.size() &&
                      (text[pos] == ' ' || text[pos] == '\t');
    out.append(text.substr(i, pos - i));
    i = pos;
    if (!word) continue;
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    size_t value_end = pos;
    while (value_end < text.size() &&
           std::isspace(static_cast<unsigned char>(text[value_end])) == 0) {
      ++value_end;
    }
    if (value_end == pos) continue;  // "password" at the end of a line: nothing to hide
    // Already retracted (a message built from retracted parts): keep it, and what follows it.
    if (text.substr(pos, kRetracted.size()) == kRetracted) continue;
    out.append(text.substr(i, pos - i));
    out += kRetracted;
    i = value_end;
  }
  out.append(text.substr(i));
  return out;
}

}  // namespace ingot::frr
