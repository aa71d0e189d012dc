// SPDX-License-Identifier: Apache-2.0
#include "cli/args.h"

#include <algorithm>

namespace ingot::cli {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

std::string Args::option(const std::string& name, const std::string& fallback) const {
  const auto it = options.find(name);
  return it == options.end() ? fallback : it->second;
}

std::vector<std::string> Args::values(const std::string& name) const {
  const auto it = all_options.find(name);
  return it == all_options.end() ? std::vector<std::string>{} : it->second;
}

bool Args::hasSwitch(const std::string& name) const {
  return contains(switches, name);
}

Result<Args> parseArgs(const std::vector<std::string>& words, const FlagSpec& spec) {
  Args args;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "-f" || w == "--filename") {
      if (i + 1 >= words.size()) {
        return invalidArgument("flag " + w + " needs a path");
      }
      args.files.push_back(words[++i]);
      continue;
    }
    if (w.rfind("--", 0) != 0) {
      return invalidArgument("unexpected argument \"" + w + "\"");
    }
    std::string name = w.substr(2);
    std::optional<std::string> value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (name == "filename") {
      if (!value || value->empty()) {
        return invalidArgument("flag --filename needs a path");
      }
      args.files.push_back(*value);
    } else if (contains(spec.valued, name)) {
      if (!value) {
        if (i + 1 >= words.size()) {
          return invalidArgument("flag --" + name + " needs a value");
        }
        value = words[++i];
      }
      args.options[name] = *value;
      args.all_options[name].push_back(*value);
    } else if (contains(spec.switches, name) && !value) {
      args.switches.push_back(name);
    } else {
      return invalidArgument("unknown flag --" + name);
    }
  }
  return args;
}

Result<void> checkChoice(const std::string& flag,
                         const std::string& value,
                         const std::vector<std::string>& choices) {
  if (contains(choices, value)) {
    return {};
  }
  std::string list;
  for (const auto& c : choices) {
    list += (list.empty() ? "" : ", ") + c;
  }
  return invalidArgument("invalid value \"" + value + "\" for --" + flag + " (one of: " + list +
                         ")");
}

}  // namespace ingot::cli
