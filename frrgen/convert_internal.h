// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the two halves of convert (convert.cpp: sessions, routers, objects;
// convert_filters.cpp: toAdvertise / toReceive). Not part of the public interface.
#pragma once

#include <set>
#include <string>

#include "api/frrk8s.h"
#include "common/net/ip.h"
#include "common/util/result.h"
#include "frrgen/model.h"

namespace ingot::frrgen::convert_detail {

/// fail builds an InvalidArgument error "<where>: <message>".
Error fail(const std::string& where, const std::string& message);

/// isWord reports whether s is one printable token without spaces: what FRR's CLI takes as one
/// WORD, and what cannot smuggle a second command into frr.conf.
bool isWord(const std::string& s);

/// checkWord fails with "<field> "<v>" must be one word ..." unless isWord(v).
Result<void> checkWord(const std::string& where, const std::string& field, const std::string& v);

/// Prefixes is a set of canonical prefixes per family.
struct Prefixes {
  std::set<std::string> v4;
  std::set<std::string> v6;
  std::set<std::string>& of(net::Family f) { return f == net::Family::V4 ? v4 : v6; }
  const std::set<std::string>& of(net::Family f) const { return f == net::Family::V4 ? v4 : v6; }
};

/// parsePrefix parses a CIDR, failing with "invalid prefix ...".
Result<net::Cidr> parsePrefix(const std::string& where, const std::string& text);

/// hasFamily reports whether a neighbor of family nf carries prefixes of family f.
bool hasFamily(NeighborFamily nf, net::Family f);

/// filters converts toAdvertise (against the available router prefixes) and toReceive into out,
/// whose family must already be set. same_advertising, when set, is a neighbor of the same router
/// and family already converted from an identical toAdvertise: out shares its outgoing lists.
Result<void> filters(const std::string& where,
                     const api::FrrNeighbor& n,
                     const Prefixes& available,
                     const Neighbor* same_advertising,
                     Neighbor& out);

}  // namespace ingot::frrgen::convert_detail
