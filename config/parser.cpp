// SPDX-License-Identifier: Apache-2.0
// config::parse: the metallb.io objects → one immutable Config (MetalLB's config.For), in
// MetalLB's order: BFD profiles → peers → pools (+ communities, L2 / BGP advertisements) →
// global checks. Every stage reports into one error list instead of stopping at the first.
#include "config/internal.h"

namespace ingot::config {

ParseOutcome parse(const Inputs& inputs, const ParseOptions& options) {
  detail::State s{inputs, options, {}, {}};
  detail::parseBfdProfiles(s);
  detail::parsePeers(s);
  detail::parsePools(s);
  detail::parseCommunities(s);
  detail::parseL2Advertisements(s);
  detail::parseBgpAdvertisements(s);
  detail::checkBackend(s);
  detail::checkBfdEcho(s);

  ParseOutcome out;
  out.errors = std::move(s.errors);
  if (out.errors.empty()) {
    out.config = std::make_shared<const Config>(std::move(s.cfg));
  }
  return out;
}

}  // namespace ingot::config
