// SPDX-License-Identifier: Apache-2.0
#include "ingotfrr/source.h"

#include "api/codec.h"
#include "api/selector.h"
#include "common/json/json.h"
#include "frrgen/merge.h"

namespace ingot::ingotfrr {
namespace {

const json::Value* member(const json::Value* v, std::string_view key) {
  return v != nullptr && v->isObject() ? v->find(key) : nullptr;
}

void neighborFields(const json::Value& n, const std::string& path, std::vector<std::string>& out) {
  if (member(&n, "addressFamilies") != nullptr) {
    out.push_back(path + ".addressFamilies: not implemented by ingot-frr (unicast only)");
  }
  if (member(member(&n, "toAdvertise"), "nextHop") != nullptr) {
    out.push_back(path + ".toAdvertise.nextHop: not implemented by ingot-frr");
  }
}

void routerFields(const json::Value& r, const std::string& path, std::vector<std::string>& out) {
  if (member(&r, "evpn") != nullptr) {
    out.push_back(path + ".evpn: not implemented by ingot-frr");
  }
  const json::Value* neighbors = member(&r, "neighbors");
  if (neighbors == nullptr || !neighbors->isArray()) {
    return;
  }
  for (size_t i = 0; i < neighbors->size(); ++i) {
    neighborFields(neighbors->items()[i], path + ".neighbors[" + std::to_string(i) + "]", out);
  }
}

/// readSelectorLabels returns matchLabels of a selector that has nothing else, all strings.
std::optional<api::StringMap> readSelectorLabels(const json::Value& object) {
  const json::Value* sel = member(member(&object, "spec"), "nodeSelector");
  if (sel == nullptr || sel->isNull()) {
    return api::StringMap{};  // no selector: every node
  }
  if (!sel->isObject()) {
    return std::nullopt;
  }
  api::StringMap out;
  for (size_t i = 0; i < sel->size(); ++i) {
    const json::Value& v = sel->items()[i];
    if (sel->keys()[i] != "matchLabels" || !v.isObject()) {
      return std::nullopt;
    }
    for (size_t j = 0; j < v.size(); ++j) {
      if (!v.items()[j].isString()) {
        return std::nullopt;
      }
      out[v.keys()[j]] = v.items()[j].text();
    }
  }
  return out;
}

std::string metaString(const json::Value& object, std::string_view key) {
  const json::Value* v = member(member(&object, "metadata"), key);
  return v != nullptr && v->isString() ? v->text() : "";
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    out += (out.empty() ? "" : "; ") + p;
  }
  return out;
}

}  // namespace

std::vector<std::string> unsupportedFields(const json::Value& object) {
  std::vector<std::string> out;
  const json::Value* spec = member(&object, "spec");
  const json::Value* routers = member(member(spec, "bgp"), "routers");
  if (routers != nullptr && routers->isArray()) {
    for (size_t i = 0; i < routers->size(); ++i) {
      routerFields(routers->items()[i], "spec.bgp.routers[" + std::to_string(i) + "]", out);
    }
  }
  return out;
}

Entry decodeEntry(std::string_view text) {
  Entry e;
  auto tree = json::parse(text);
  if (!tree) {
    e.error = "not JSON: " + tree.error().message;
    return e;
  }
  e.namespace_ = metaString(*tree, "namespace");
  e.name = metaString(*tree, "name");
  if (auto refused = unsupportedFields(*tree); !refused.empty()) {
    e.error = join(refused);
  } else if (auto decoded = api::decodeJson<api::FRRConfiguration>(text); !decoded) {
    e.error = "does not decode: " + decoded.error().message;
  } else {
    e.config = std::move(*decoded);
    return e;
  }
  e.selector_labels = readSelectorLabels(*tree);
  return e;
}

std::string entryKey(const Entry& e) {
  return e.namespace_ + "/" + e.name;
}

Result<Desired> desiredFor(const std::vector<Entry>& entries,
                           const std::vector<api::Secret>& secrets,
                           const std::string& ns,
                           const api::StringMap& labels) {
  std::vector<api::FRRConfiguration> configs;
  for (const auto& e : entries) {
    if (!e.namespace_.empty() && e.namespace_ != ns) {
      continue;
    }
    if (e.config) {
      configs.push_back(*e.config);
      continue;
    }
    if (!e.selector_labels || api::matches(api::LabelSelector{*e.selector_labels, {}}, labels)) {
      return invalidArgument("FRRConfiguration " + entryKey(e) + ": " + e.error);
    }
  }
  auto selected = frrgen::selectForNode(configs, ns, labels);
  if (!selected) {
    return selected.error();
  }
  Desired out;
  for (const auto& c : *selected) {
    out.selected.push_back(c.metadata.namespace_ + "/" + c.metadata.name);
  }
  auto model = frrgen::merge(*selected, secrets);
  if (!model) {
    return model.error();
  }
  out.model = std::move(*model);
  return out;
}

}  // namespace ingot::ingotfrr
