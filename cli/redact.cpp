// SPDX-License-Identifier: Apache-2.0
#include "cli/redact.h"

#include <algorithm>
#include <cctype>

#include "cli/cluster.h"
#include "common/util/base64.h"

namespace ingot::cli {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool credentialMember(std::string_view key) {
  static const std::set<std::string> kNames = {"password", "token", "bearertoken", "secretkey"};
  return kNames.contains(lower(key));
}

bool credentialEnvName(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  static const std::vector<std::string> kWords = {"PASS", "TOKEN", "SECRET", "KEY", "CREDENTIAL"};
  return std::any_of(kWords.begin(), kWords.end(),
                     [&](const std::string& w) { return upper.find(w) != std::string::npos; });
}

/// publicSecretKey: keys of Secret data that hold public values (a service-account token
/// Secret's namespace and CA certificate, a TLS Secret's certificate). They are still redacted
/// in the Secret itself, but not scrubbed from the rest of the bundle: the namespace's name and
/// the cluster's CA appear legitimately elsewhere.
bool publicSecretKey(std::string_view key) {
  return key == "namespace" || key == "ca.crt" || key == "tls.crt";
}

json::Value redacted() {
  return json::Value::string(std::string(kRedacted));
}

/// redactAll replaces every member value of an object (a Secret's data or stringData).
json::Value redactAll(const json::Value& map) {
  json::Value out = json::Value::object();
  for (const auto& key : map.keys()) {
    out.set(key, redacted());
  }
  return out;
}

/// redactTree applies the member rules recursively.
json::Value redactTree(const json::Value& v) {
  if (v.isArray()) {
    json::Value out = json::Value::array();
    for (const auto& item : v.items()) {
      out.push(redactTree(item));
    }
    return out;
  }
  if (!v.isObject()) {
    return v;
  }
  const std::string env_name = stringAt(v, {"name"});
  const bool env_secret = v.find("value") != nullptr && credentialEnvName(env_name);
  json::Value out = json::Value::object();
  for (size_t i = 0; i < v.keys().size(); ++i) {
    const auto& key = v.keys()[i];
    const bool hide = credentialMember(key) || (env_secret && key == "value");
    out.set(key, hide ? redacted() : redactTree(v.items()[i]));
  }
  return out;
}

void collectTree(const json::Value& v, std::set<std::string>& out) {
  if (v.isArray()) {
    for (const auto& item : v.items()) {
      collectTree(item, out);
    }
  }
  if (!v.isObject()) {
    return;
  }
  const bool env_secret = v.find("value") != nullptr && credentialEnvName(stringAt(v, {"name"}));
  for (size_t i = 0; i < v.keys().size(); ++i) {
    const auto& item = v.items()[i];
    const bool hide = credentialMember(v.keys()[i]) || (env_secret && v.keys()[i] == "value");
    if (hide && item.isString()) {
      out.insert(item.text());
    } else {
      collectTree(item, out);
    }
  }
}

}  // namespace

json::Value redactObject(const json::Value& object) {
  json::Value out = redactTree(object);
  const bool secret = stringAt(object, {"kind"}) == "Secret";
  for (const std::string key : {"data", "stringData"}) {
    if (const auto* map = object.find(key); secret && map != nullptr && map->isObject()) {
      putMember(out, key, redactAll(*map));
    }
  }
  if (const auto* meta = out.find("metadata"); meta != nullptr && meta->isObject()) {
    json::Value m = withoutMembers(*meta, {"managedFields"});
    if (const auto* ann = m.find("annotations"); ann != nullptr && ann->isObject()) {
      json::Value a = *ann;
      if (a.find(kLastAppliedAnnotation) != nullptr) {
        putMember(a, kLastAppliedAnnotation, redacted());
      }
      putMember(m, "annotations", std::move(a));
    }
    putMember(out, "metadata", std::move(m));
  }
  return out;
}

std::string redactFrrText(std::string_view text) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    end = end == std::string_view::npos ? text.size() : end + 1;
    std::string line(text.substr(pos, end - pos));
    pos = end;
    const auto at = lower(line).find("password");
    if (at != std::string::npos) {
      size_t start = line.find_first_not_of(" \t", at + 8);
      if (start != std::string::npos && line[start] != '\n' && line[start] != '\r') {
        size_t stop = line.find_first_of(" \t\r\n", start);
        stop = stop == std::string::npos ? line.size() : stop;
        line.replace(start, stop - start, kRedacted);
      }
    }
    out += line;
  }
  return out;
}

std::set<std::string> sensitiveValues(const std::vector<json::Value>& objects) {
  std::set<std::string> all;
  for (const auto& o : objects) {
    collectTree(o, all);
    if (stringAt(o, {"kind"}) != "Secret") {
      continue;
    }
    if (const auto* data = o.find("data"); data != nullptr && data->isObject()) {
      for (size_t i = 0; i < data->size(); ++i) {
        const auto& v = data->items()[i];
        auto plain = decodeBase64(v.text(), Base64Mode::GoStd);
        if (!publicSecretKey(data->keys()[i])) {
          all.insert(v.text());
          all.insert(plain ? *plain : v.text());
        }
      }
    }
    if (const auto* data = o.find("stringData"); data != nullptr && data->isObject()) {
      for (size_t i = 0; i < data->size(); ++i) {
        if (!publicSecretKey(data->keys()[i])) {
          all.insert(data->items()[i].text());
        }
      }
    }
  }
  std::set<std::string> out;
  for (const auto& v : all) {
    if (v.size() >= kMinScrubLength) {
      out.insert(v);
    }
  }
  return out;
}

size_t scrub(std::string& text, const std::set<std::string>& values) {
  // Longest first, so that a value containing another is replaced whole.
  std::vector<std::string> ordered(values.begin(), values.end());
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.size() > b.size(); });
  size_t count = 0;
  for (const auto& value : ordered) {
    for (const std::string& needle : {value, encodeBase64(value)}) {
      for (size_t at = text.find(needle); at != std::string::npos;
           at = text.find(needle, at + kRedacted.size())) {
        text.replace(at, needle.size(), kRedacted);
        ++count;
      }
    }
  }
  return count;
}

}  // namespace ingot::cli
