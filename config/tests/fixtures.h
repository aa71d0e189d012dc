// SPDX-License-Identifier: Apache-2.0
// Builders and checks shared by the config parser tests. Objects are built as api structs
// directly (no codec), all in the MetalLB namespace.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "api/types.h"
#include "config/config.h"

namespace ingot::config::testing {

inline constexpr char kNs[] = "metallb-system";

/// with returns t after applying f to it, for one-line variations of a base object.
template <typename T, typename F>
T with(T t, F f) {
  f(t);
  return t;
}

inline api::ObjectMeta meta(std::string name, api::StringMap labels = {}) {
  api::ObjectMeta m;
  m.name = std::move(name);
  m.namespace_ = kNs;
  m.labels = std::move(labels);
  return m;
}

inline api::IPAddressPool pool(std::string name,
                               std::vector<std::string> addresses,
                               api::StringMap labels = {}) {
  api::IPAddressPool p;
  p.metadata = meta(std::move(name), std::move(labels));
  p.spec.addresses = std::move(addresses);
  return p;
}

inline api::Node node(std::string name, api::StringMap labels = {}) {
  api::Node n;
  n.metadata = meta(std::move(name), std::move(labels));
  n.metadata.namespace_.clear();
  return n;
}

inline api::Namespace ns(std::string name, api::StringMap labels = {}) {
  api::Namespace n;
  n.metadata = meta(std::move(name), std::move(labels));
  n.metadata.namespace_.clear();
  return n;
}

inline api::BGPPeer peer(std::string name, uint32_t my_asn, uint32_t peer_asn, std::string addr) {
  api::BGPPeer p;
  p.metadata = meta(std::move(name));
  p.spec.my_asn = my_asn;
  p.spec.peer_asn = peer_asn;
  p.spec.peer_address = std::move(addr);
  return p;
}

inline api::L2Advertisement l2(std::string name, std::vector<std::string> pools = {}) {
  api::L2Advertisement a;
  a.metadata = meta(std::move(name));
  a.spec.ip_address_pools = std::move(pools);
  return a;
}

inline api::BGPAdvertisement bgp(std::string name, std::vector<std::string> pools = {}) {
  api::BGPAdvertisement a;
  a.metadata = meta(std::move(name));
  a.spec.ip_address_pools = std::move(pools);
  return a;
}

inline api::BFDProfile bfd(std::string name) {
  api::BFDProfile b;
  b.metadata = meta(std::move(name));
  return b;
}

inline api::Community community(std::string name, std::vector<api::CommunityAlias> aliases) {
  api::Community c;
  c.metadata = meta(std::move(name));
  c.communities = std::move(aliases);
  return c;
}

inline api::Secret secret(std::string name, std::string type, api::StringMap data) {
  api::Secret s;
  s.metadata = meta(std::move(name));
  s.type = std::move(type);
  s.data = std::move(data);
  return s;
}

inline api::LabelSelector sel(api::StringMap m) {
  return api::LabelSelector{std::move(m), {}};
}

inline api::LabelSelector expr(std::string key, std::string op, std::vector<std::string> values) {
  return api::LabelSelector{{}, {{std::move(key), std::move(op), std::move(values)}}};
}

/// dur builds a metav1.Duration from Go text and its value in milliseconds.
inline api::Duration dur(std::string text, int64_t ms) {
  return api::Duration{ms * 1000 * 1000, std::move(text)};
}

inline std::chrono::nanoseconds ms(int64_t v) {
  return std::chrono::milliseconds(v);
}

/// Want is one expected error.
struct Want {
  std::string kind;
  std::string name;
  std::string field;
  std::string message;
  bool transient = false;
};

inline std::string line(const std::string& kind,
                        const std::string& name,
                        const std::string& field,
                        const std::string& message,
                        bool transient) {
  return kind + "/" + name + " " + field + ": " + message + (transient ? " [transient]" : "");
}

/// errorLines renders errors as "Kind/name field: message [transient]", so a mismatch prints
/// both sides in full.
inline std::vector<std::string> errorLines(const std::vector<ConfigError>& errors) {
  std::vector<std::string> out;
  out.reserve(errors.size());
  for (const auto& e : errors) {
    out.push_back(line(e.kind, e.name, e.field, e.message, e.transient));
  }
  return out;
}

inline std::vector<std::string> wantLines(const std::vector<Want>& wants) {
  std::vector<std::string> out;
  out.reserve(wants.size());
  for (const auto& w : wants) {
    out.push_back(line(w.kind, w.name, w.field, w.message, w.transient));
  }
  return out;
}

/// joined puts one line per row, so a failed comparison prints both lists whole.
inline std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) {
    out += "\n  " + l;
  }
  return out;
}

inline ParseOutcome run(const Inputs& in, Backend backend = Backend::FrrK8s) {
  ParseOptions options;
  options.backend = backend;
  return parse(in, options);
}

/// ErrorCase is a table row: inputs, backend and the exact errors expected (none = valid).
struct ErrorCase {
  std::string desc;
  Inputs in;
  std::vector<Want> want;
  Backend backend = Backend::FrrK8s;
};

/// checkErrors runs every row and compares the full error list; a valid row must yield a config
/// and an invalid one must not. Every error must also carry the MetalLB namespace.
inline void checkErrors(const std::vector<ErrorCase>& cases) {
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto out = run(c.in, c.backend);
      BOOST_TEST(joined(errorLines(out.errors)) == joined(wantLines(c.want)));
      BOOST_TEST((out.config != nullptr) == c.want.empty());
      for (const auto& e : out.errors) {
        BOOST_TEST(e.namespace_ == kNs);
      }
    }
  }
}

/// parseOk parses inputs that must be valid and returns the config.
inline Config parseOk(const Inputs& in, Backend backend = Backend::FrrK8s) {
  const auto out = run(in, backend);
  BOOST_TEST(joined(errorLines(out.errors)) == "");
  BOOST_REQUIRE(out.config != nullptr);
  return *out.config;
}

}  // namespace ingot::config::testing
