// SPDX-License-Identifier: Apache-2.0
#include "api/manifest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "api/codec.h"
#include "api/validate.h"
#include "common/json/json.h"
#include "common/yaml/reader.h"

namespace ingot::api {
namespace {

constexpr int kMaxListNesting = 3;

std::string member(const json::Value& v, std::string_view key) {
  const json::Value* m = v.isObject() ? v.find(key) : nullptr;
  return m != nullptr && m->isString() ? m->text() : std::string();
}

std::string metaMember(const json::Value& v, std::string_view key) {
  const json::Value* meta = v.isObject() ? v.find("metadata") : nullptr;
  return meta != nullptr ? member(*meta, key) : std::string();
}

/// Loader holds the per-file state while documents are turned into objects.
class Loader {
 public:
  Loader(const std::string& file, ManifestSet& out) : file_(file), out_(out) {}

  void document(const json::Value& root, int line) {
    if (root.isNull()) {
      return;  // empty document
    }
    item(root, line, 0);
  }

  void problem(int line, std::string field, std::string message) {
    out_.problems.push_back(
        ManifestProblem{SourcePos{file_, line}, "", "", "", std::move(field), std::move(message)});
  }

 private:
  void item(const json::Value& v, int line, int list_depth) {
    if (!v.isObject()) {
      problem(line, "",
              "expected a Kubernetes object, got " + std::string(json::typeName(v.type())));
      return;
    }
    const std::string kind = member(v, "kind");
    const json::Value* items = v.find("items");
    const bool is_list = kind == "List" || (kind.size() > 4 && kind.ends_with("List") &&
                                            items != nullptr && items->isArray());
    if (is_list) {
      list(v, kind, list_depth);
      return;
    }
    object(v, line);
  }

  void list(const json::Value& v, const std::string& kind, int list_depth) {
    const json::Value* items = v.find("items");
    if (list_depth >= kMaxListNesting || items == nullptr || !items->isArray()) {
      problem(v.line(), "items",
              list_depth >= kMaxListNesting ? "lists nested too deeply"
                                            : "a List needs an items array");
      return;
    }
    const std::string item_kind = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
    const std::string api_version = member(v, "apiVersion");
    for (const auto& entry : items->items()) {
      // Items of a typed list (IPAddressPoolList) from the API carry no apiVersion/kind.
      if (!item_kind.empty() && entry.isObject() && entry.find("kind") == nullptr) {
        json::Value filled = entry;
        filled.set("apiVersion", json::Value::string(api_version));
        filled.set("kind", json::Value::string(item_kind));
        item(filled, entry.line(), list_depth + 1);
      } else {
        item(entry, entry.line(), list_depth + 1);
      }
    }
  }

  void object(const json::Value& v, int line) {
    const std::string api_version = member(v, "apiVersion");
    const std::string kind = member(v, "kind");
    ManifestProblem base{SourcePos{file_, line}, kind, metaMember(v, "namespace"),
                         metaMember(v, "name"),  "",   ""};
    if (api_version.empty() || kind.empty()) {
      base.field = api_version.empty() ? "apiVersion" : "kind";
      base.message = "apiVersion and kind must be set";
      out_.problems.push_back(std::move(base));
      return;
    }
    if (!isKnownKind(api_version, kind)) {
      unknownKind(api_version, kind, std::move(base));
      return;
    }
    json::Decoder decoder;
    auto decoded = decodeAnyValue(v, decoder);
    for (const auto& issue : decoder.issues()) {
      ManifestProblem p = base;
      p.pos.line = issue.line > 0 ? issue.line : line;
      p.field = issue.path;
      p.message = issue.message;
      out_.problems.push_back(std::move(p));
    }
    if (!decoder.ok() || !decoded) {
      return;
    }
    for (const auto& error : validateObject(*decoded)) {
      ManifestProblem p = base;
      p.pos.line = json::lineOf(v, error.field);
      p.field = error.field;
      p.message = error.message;
      out_.problems.push_back(std::move(p));
    }
    out_.objects.push_back(
        ManifestObject{api_version, kind, SourcePos{file_, line}, std::move(*decoded)});
  }

  void unknownKind(const std::string& api_version, const std::string& kind, ManifestProblem base) {
    // frr-k8s' status and settings kinds (FRRNodeState, BGPSessionState, FRRK8sConfiguration)
    // are real objects Ingot does not read; a wrong metallb.io kind/version is a mistake.
    if (isStrictGroup(api_version) && api_version.rfind("frrk8s.metallb.io/", 0) != 0) {
      base.field = "kind";
      base.message = "unsupported kind " + api_version + " " + kind;
      out_.problems.push_back(std::move(base));
      return;
    }
    out_.notes.push_back(file_ + ":" + std::to_string(base.pos.line) + ": skipping unknown kind " +
                         api_version + " " + kind);
  }

  const std::string& file_;
  ManifestSet& out_;
};

bool looksLikeJson(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (text[first] == '{' || text[first] == '[');
}

/// readLimited reads a stream up to kMaxManifestBytes; false if it holds more.
bool readLimited(std::istream& in, std::string& out) {
  out.clear();
  char buf[65536];
  while (in.read(buf, sizeof(buf)) || in.gcount() > 0) {
    out.append(buf, static_cast<size_t>(in.gcount()));
    if (out.size() > kMaxManifestBytes) {
      return false;
    }
  }
  return true;
}

bool hasManifestExtension(const std::filesystem::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

void loadFile(const std::string& path, ManifestSet& out) {
  std::ifstream in(path, std::ios::binary);
  std::string text;
  if (!in) {
    out.problems.push_back(
        ManifestProblem{SourcePos{path, 0}, "", "", "", "", "cannot open file for reading"});
    return;
  }
  if (!readLimited(in, text)) {
    out.problems.push_back(
        ManifestProblem{SourcePos{path, 0}, "", "", "", "", "file is larger than 64 MiB"});
    return;
  }
  append(out, loadManifestText(text, path));
}

void loadDirectory(const std::string& path, ManifestSet& out) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && hasManifestExtension(it->path())) {
      files.push_back(it->path().string());
    }
  }
  if (ec) {
    out.problems.push_back(ManifestProblem{SourcePos{path, 0}, "", "", "", "",
                                           "cannot read directory: " + ec.message()});
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    loadFile(f, out);
  }
}

}  // namespace

ManifestSet loadManifestText(std::string_view text, const std::string& file_name) {
  ManifestSet out;
  Loader loader(file_name, out);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    text.remove_prefix(3);  // UTF-8 byte order mark
  }
  if (looksLikeJson(text)) {
    auto tree = json::parse(text);
    if (tree) {
      loader.document(*tree, tree->line());
      return out;
    }
    if (file_name.ends_with(".json")) {
      const std::string& m = tree.error().message;
      const int line = m.rfind("line ", 0) == 0 ? std::atoi(m.c_str() + 5) : 0;
      loader.problem(line, "", "invalid JSON: " + m);
      return out;
    }
    // Not strict JSON: it may still be YAML flow syntax ({a: b}).
  }
  yaml::Stream stream = yaml::parseStream(text);
  for (const auto& doc : stream.documents) {
    loader.document(doc.root, doc.line);
  }
  if (stream.error) {
    loader.problem(stream.error->line, "", "invalid YAML: " + stream.error->message);
  }
  return out;
}

ManifestSet loadManifestPaths(const std::vector<std::string>& paths) {
  ManifestSet out;
  for (const auto& path : paths) {
    if (path == "-") {
      std::string text;
      if (!readLimited(std::cin, text)) {
        out.problems.push_back(ManifestProblem{SourcePos{"<stdin>", 0}, "", "", "", "",
                                               "input is larger than 64 MiB"});
        continue;
      }
      append(out, loadManifestText(text, "<stdin>"));
      continue;
    }
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      loadDirectory(path, out);
    } else {
      loadFile(path, out);
    }
  }
  return out;
}

void append(ManifestSet& set, ManifestSet&& more) {
  std::move(more.objects.begin(), more.objects.end(), std::back_inserter(set.objects));
  std::move(more.problems.begin(), more.problems.end(), std::back_inserter(set.problems));
  std::move(more.notes.begin(), more.notes.end(), std::back_inserter(set.notes));
}

}  // namespace ingot::api
