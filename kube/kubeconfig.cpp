// SPDX-License-Identifier: Apache-2.0
#include "kube/kubeconfig.h"

#include <cstdlib>
#include <map>
#include <optional>

#include "common/json/value.h"
#include "common/util/base64.h"
#include "common/util/quote.h"
#include "common/yaml/reader.h"
#include "kube/token_source.h"

namespace ingot::k8s {
namespace {

/// Entry is one named cluster, user or context and the source that defined it.
struct Entry {
  json::Value node;  ///< null when the entry has no body
  const KubeconfigSource* source = nullptr;
};

/// Merged is the union of the sources, first definition winning.
struct Merged {
  std::string current_context;
  std::map<std::string, Entry> clusters;
  std::map<std::string, Entry> users;
  std::map<std::string, Entry> contexts;
};

std::string where(const Entry& e) {
  return e.source->name.empty() ? std::string() : " (in " + e.source->name + ")";
}

std::string resolvePath(const KubeconfigSource& source, const std::string& path) {
  if (path.empty() || path.front() == '/' || source.base_dir.empty()) return path;
  return source.base_dir + "/" + path;
}

/// present reports a member of map that is there and not null.
bool present(const json::Value& map, std::string_view key) {
  const json::Value* v = map.find(key);
  return v != nullptr && !v->isNull();
}

/// scalar returns map[key] as a string; nullopt when absent or null; an error when not a scalar.
/// The files are read with yaml::Scalars::Text, so every scalar is a string as written.
Result<std::optional<std::string>> scalar(const json::Value& map,
                                          const char* key,
                                          const std::string& what) {
  const json::Value* v = map.find(key);
  if (v == nullptr || v->isNull()) return std::optional<std::string>{};
  if (!v->isString()) return invalidArgument(what + ": " + key + " must be a string");
  return std::optional<std::string>(v->text());
}

Result<bool> boolean(const json::Value& map, const char* key, const std::string& what) {
  auto s = scalar(map, key, what);
  if (!s) return s.error();
  if (!*s) return false;
  if (**s == "true" || **s == "True") return true;
  if (**s == "false" || **s == "False") return false;
  return invalidArgument(what + ": " + key + " must be true or false, got " + goQuote(**s));
}

/// collect adds the entries of one section ("clusters" with inner key "cluster", ...).
Result<void> collect(const KubeconfigSource& source,
                     const json::Value& root,
                     const char* section,
                     const char* inner,
                     std::map<std::string, Entry>& out) {
  const std::string what = "kubeconfig " + source.name;
  const json::Value* list = root.find(section);
  if (list == nullptr || list->isNull()) return {};
  if (!list->isArray()) return invalidArgument(what + ": " + section + " must be a list");
  for (const json::Value& item : list->items()) {
    if (!item.isObject()) return invalidArgument(what + ": " + section + " entries must be maps");
    auto name = scalar(item, "name", what + ": " + section + " entry");
    if (!name) return name.error();
    if (!*name || (*name)->empty()) {
      return invalidArgument(what + ": a " + inner + " entry has no name");
    }
    const json::Value* body = item.find(inner);
    if (body != nullptr && !body->isNull() && !body->isObject()) {
      return invalidArgument(what + ": " + inner + " " + goQuote(**name) + " must be a map");
    }
    out.emplace(**name, Entry{body == nullptr ? json::Value::null() : *body,
                              &source});  // emplace keeps the first definition
  }
  return {};
}

Result<void> mergeSource(const KubeconfigSource& source, Merged& merged) {
  auto parsed = yaml::parseFirstDocument(source.text, yaml::Scalars::Text);
  if (!parsed) {
    return invalidArgument("kubeconfig " + source.name +
                           ": invalid YAML: " + parsed.error().message);
  }
  const json::Value& root = *parsed;
  if (root.isNull()) return {};
  if (!root.isObject()) return invalidArgument("kubeconfig " + source.name + ": not a YAML map");
  auto current = scalar(root, "current-context", "kubeconfig " + source.name);
  if (!current) return current.error();
  if (merged.current_context.empty() && *current) merged.current_context = **current;
  if (auto r = collect(source, root, "clusters", "cluster", merged.clusters); !r) return r;
  if (auto r = collect(source, root, "users", "user", merged.users); !r) return r;
  return collect(source, root, "contexts", "context", merged.contexts);
}

/// pemField reads "<key>-data" (base64) or "<key>" (a path) into data/file.
Result<void> pemField(const Entry& e,
                      const std::string& what,
                      const std::string& key,
                      std::string& data,
                      std::string& file) {
  auto raw = scalar(e.node, (key + "-data").c_str(), what);
  if (!raw) return raw.error();
  if (*raw) {
    auto decoded = decodeBase64(**raw, Base64Mode::Lenient);
    if (!decoded) {
      return invalidArgument(what + ": " + key +
                             "-data: not valid base64: " + decoded.error().message);
    }
    data = std::move(*decoded);
    return {};
  }
  auto path = scalar(e.node, key.c_str(), what);
  if (!path) return path.error();
  if (*path) file = resolvePath(*e.source, **path);
  return {};
}

Result<void> applyCluster(const std::string& name, const Entry& e, ClientConfig& cfg) {
  const std::string what = "kubeconfig cluster " + goQuote(name) + where(e);
  if (e.node.isNull()) return invalidArgument(what + ": has no cluster map");
  auto server = scalar(e.node, "server", what);
  if (!server) return server.error();
  if (!*server || (*server)->empty()) return invalidArgument(what + ": server is required");
  cfg.server = **server;
  if (auto r = pemField(e, what, "certificate-authority", cfg.ca_data, cfg.ca_file); !r) return r;
  auto insecure = boolean(e.node, "insecure-skip-tls-verify", what);
  if (!insecure) return insecure.error();
  cfg.insecure_skip_tls_verify = *insecure;
  if (*insecure && (!cfg.ca_data.empty() || !cfg.ca_file.empty())) {
    return invalidArgument(what +
                           ": specifying a root certificates file with the insecure flag is not "
                           "allowed");
  }
  if (*insecure) {
    cfg.warnings.push_back(what +
                           ": insecure-skip-tls-verify is set, the API server's certificate is "
                           "NOT verified");
  }
  if (auto sni = scalar(e.node, "tls-server-name", what); sni && *sni) {
    cfg.warnings.push_back(what +
                           ": tls-server-name is not supported; the certificate must be "
                           "valid for the server's host");
  }
  return {};
}

Result<void> rejectUnsupportedAuth(const Entry& e, const std::string& what) {
  if (present(e.node, "exec")) {
    return invalidArgument(what + ": exec credential plugins are not supported");
  }
  if (present(e.node, "auth-provider")) {
    return invalidArgument(what + ": auth-provider plugins are not supported");
  }
  return {};
}

Result<void> applyUser(const std::string& name, const Entry& e, ClientConfig& cfg) {
  const std::string what = "kubeconfig user " + goQuote(name) + where(e);
  if (e.node.isNull()) return {};  // anonymous
  if (auto r = rejectUnsupportedAuth(e, what); !r) return r;
  auto token = scalar(e.node, "token", what);
  if (!token) return token.error();
  if (*token) cfg.token = **token;
  auto token_file = scalar(e.node, "tokenFile", what);
  if (!token_file) return token_file.error();
  if (*token_file) cfg.token_file = resolvePath(*e.source, **token_file);
  if (auto r = pemField(e, what, "client-certificate", cfg.client_certificate_data,
                        cfg.client_certificate_file);
      !r) {
    return r;
  }
  if (auto r = pemField(e, what, "client-key", cfg.client_key_data, cfg.client_key_file); !r) {
    return r;
  }
  const bool has_cert =
      !cfg.client_certificate_data.empty() || !cfg.client_certificate_file.empty();
  const bool has_key = !cfg.client_key_data.empty() || !cfg.client_key_file.empty();
  if (has_cert != has_key) {
    return invalidArgument(what + (has_cert ? ": client-certificate is set without client-key"
                                            : ": client-key is set without client-certificate"));
  }
  if (e.node.find("username") != nullptr || e.node.find("password") != nullptr) {
    cfg.warnings.push_back(what +
                           ": basic authentication (username/password) is not supported "
                           "and is ignored");
  }
  return {};
}

/// contextRefs returns (cluster, user, namespace) of the context.
Result<void> applyContext(const Merged& m, const std::string& name, ClientConfig& cfg) {
  auto it = m.contexts.find(name);
  if (it == m.contexts.end()) {
    return invalidArgument("kubeconfig: context " + goQuote(name) + " not found");
  }
  const Entry& ctx = it->second;
  const std::string what = "kubeconfig context " + goQuote(name) + where(ctx);
  if (ctx.node.isNull()) return invalidArgument(what + ": is empty");
  auto cluster = scalar(ctx.node, "cluster", what);
  if (!cluster) return cluster.error();
  if (!*cluster || (*cluster)->empty()) return invalidArgument(what + ": names no cluster");
  auto c = m.clusters.find(**cluster);
  if (c == m.clusters.end()) {
    return invalidArgument(what + ": cluster " + goQuote(**cluster) + " not found");
  }
  if (auto r = applyCluster(c->first, c->second, cfg); !r) return r;
  auto user = scalar(ctx.node, "user", what);
  if (!user) return user.error();
  if (*user && !(*user)->empty()) {
    auto u = m.users.find(**user);
    if (u == m.users.end()) {
      return invalidArgument(what + ": user " + goQuote(**user) + " not found");
    }
    if (auto r = applyUser(u->first, u->second, cfg); !r) return r;
  }
  auto ns = scalar(ctx.node, "namespace", what);
  if (!ns) return ns.error();
  if (*ns && !(*ns)->empty()) cfg.default_namespace = **ns;
  return {};
}

std::string dirName(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return {};
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::vector<std::string> splitPathList(std::string_view list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(':', start);
    if (end == std::string_view::npos) end = list.size();
    if (end > start) out.emplace_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string envOr(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

/// resolveContext merges the sources and builds the config of the selected context.
Result<ClientConfig> resolveContext(const std::vector<KubeconfigSource>& sources,
                                    std::string_view context) {
  Merged merged;
  for (const auto& source : sources) {
    if (auto r = mergeSource(source, merged); !r) return r.error();
  }
  const std::string name = context.empty() ? merged.current_context : std::string(context);
  if (name.empty()) {
    return invalidArgument(
        "kubeconfig: no context selected (current-context is empty and no "
        "context was given)");
  }
  ClientConfig cfg;
  if (auto r = applyContext(merged, name, cfg); !r) return r.error();
  std::string files;
  for (const auto& s : sources) files += (files.empty() ? "" : ",") + s.name;
  cfg.source = "kubeconfig " + files + " context " + name;
  return cfg;
}

}  // namespace

Result<ClientConfig> parseKubeconfig(const std::vector<KubeconfigSource>& sources,
                                     std::string_view context) {
  return resolveContext(sources, context);
}

Result<ClientConfig> loadKubeconfig(const std::vector<std::string>& paths,
                                    std::string_view context) {
  std::vector<KubeconfigSource> sources;
  std::string missing;
  for (const auto& path : paths) {
    auto text = readFile(path, "kubeconfig");
    if (!text) {
      missing += (missing.empty() ? "" : "; ") + text.error().message;
      continue;
    }
    sources.push_back(KubeconfigSource{std::move(*text), dirName(path), path});
  }
  if (sources.empty()) {
    return Error{ErrorCode::NotFound,
                 missing.empty() ? "kubeconfig: no file given" : "kubeconfig: " + missing};
  }
  return parseKubeconfig(sources, context);
}

InClusterEnv inClusterEnvFromProcess() {
  return InClusterEnv{envOr("KUBERNETES_SERVICE_HOST"), envOr("KUBERNETES_SERVICE_PORT"),
                      std::string(kServiceAccountDir)};
}

Result<ClientConfig> inClusterConfig(const InClusterEnv& env) {
  if (env.host.empty() || env.port.empty()) {
    return Error{ErrorCode::NotFound,
                 "in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be "
                 "set (not running in a pod?)"};
  }
  ClientConfig cfg;
  const bool v6 = env.host.find(':') != std::string::npos;
  cfg.server = "https://" + (v6 ? "[" + env.host + "]" : env.host) + ":" + env.port;
  cfg.token_file = env.service_account_dir + "/token";
  if (auto token = readFile(cfg.token_file, "service account token"); !token) {
    return Error{token.error().code, "in-cluster config: " + token.error().message};
  }
  cfg.ca_file = env.service_account_dir + "/ca.crt";
  if (auto ca = readFile(cfg.ca_file, "service account CA"); !ca) {
    return Error{ca.error().code, "in-cluster config: " + ca.error().message};
  }
  if (auto ns = readFile(env.service_account_dir + "/namespace", "namespace"); ns) {
    std::string value = *ns;
    while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.pop_back();
    if (!value.empty()) cfg.default_namespace = value;
  }
  cfg.source = "in-cluster " + cfg.server;
  return cfg;
}

LoadOptions loadOptionsFromProcess(std::string kubeconfig_flag, std::string context_flag) {
  return LoadOptions{std::move(kubeconfig_flag), std::move(context_flag), envOr("KUBECONFIG"),
                     envOr("HOME"), inClusterEnvFromProcess()};
}

Result<ClientConfig> loadClientConfig(const LoadOptions& options) {
  if (!options.kubeconfig.empty()) return loadKubeconfig({options.kubeconfig}, options.context);
  if (!options.kubeconfig_env.empty()) {
    return loadKubeconfig(splitPathList(options.kubeconfig_env), options.context);
  }
  if (!options.in_cluster.host.empty()) return inClusterConfig(options.in_cluster);
  if (!options.home.empty()) {
    auto home = loadKubeconfig({options.home + "/.kube/config"}, options.context);
    if (home || home.error().code != ErrorCode::NotFound) return home;
  }
  return Error{ErrorCode::NotFound,
               "no Kubernetes configuration found: pass --kubeconfig, set KUBECONFIG, run in a pod "
               "(KUBERNETES_SERVICE_HOST), or create ~/.kube/config"};
}

}  // namespace ingot::k8s
