// SPDX-License-Identifier: Apache-2.0
// The validating webhooks' decisions: AdmissionReview decoding and encoding, what each request
// reads, and the verdicts (MetalLB's messages and warnings) for a table of requests against a
// table of existing objects.
#include "controller/webhook/admission.h"

#include <boost/test/unit_test.hpp>

#include "api/codec.h"
#include "common/json/json.h"

namespace ingot::controller::webhook {
namespace {

const std::string kNs = "metallb-system";

api::IPAddressPool pool(const std::string& name, const std::string& cidr) {
  api::IPAddressPool p;
  p.metadata.name = name;
  p.metadata.namespace_ = kNs;
  p.spec.addresses = {cidr};
  return p;
}

api::BGPPeer peer(const std::string& name, const std::string& bfd) {
  api::BGPPeer p;
  p.metadata.name = name;
  p.metadata.namespace_ = kNs;
  p.spec.my_asn = 64500;
  p.spec.peer_asn = 64501;
  p.spec.peer_address = "10.0.0.1";
  p.spec.bfd_profile = bfd;
  return p;
}

config::Inputs existing() {
  config::Inputs in;
  in.pools = {pool("a", "10.0.0.0/16"), pool("v6", "fd00::/120")};
  in.peers = {peer("tor", "fast")};
  return in;
}

/// review builds an AdmissionReview v1 request body around object (JSON text or "null").
std::string review(const std::string& kind,
                   const std::string& version,
                   const std::string& operation,
                   const std::string& ns,
                   const std::string& object,
                   const std::string& old_object = "null",
                   const std::string& sub_resource = "") {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",)"
         R"("kind":{"group":"metallb.io","version":")" +
         version + R"(","kind":")" + kind + R"("},"subResource":")" + sub_resource +
         R"(","operation":")" + operation + R"(","namespace":")" + ns +
         R"(","name":"x","object":)" + object + R"(,"oldObject":)" + old_object + "}}";
}

std::string poolJson(const std::string& name, const std::string& ns, const std::string& cidr) {
  return R"({"apiVersion":"metallb.io/v1beta1","kind":"IPAddressPool","metadata":{"name":")" +
         name + R"(","namespace":")" + ns + R"("},"spec":{"addresses":[")" + cidr + R"("]}})";
}

const Route& route(std::string_view kind) {
  for (const auto& r : routes()) {
    if (r.kind == kind) return r;
  }
  throw std::logic_error("no route");
}

BOOST_AUTO_TEST_CASE(routes_are_metallbs_six_paths) {
  BOOST_TEST(routes().size() == 6u);
  BOOST_TEST(routeFor("/validate-metallb-io-v1beta1-ipaddresspool")->kind == "IPAddressPool");
  BOOST_TEST(routeFor("/validate-metallb-io-v1beta2-bgppeer")->version == "v1beta2");
  BOOST_TEST(routeFor("/validate-metallb-io-v1beta1-bfdprofile")->resource == "bfdprofiles");
  BOOST_TEST(routeFor("/validate-metallb-io-v1beta1-servicel2status") == nullptr);
  BOOST_TEST(routeFor("/convert") == nullptr);
}

BOOST_AUTO_TEST_CASE(reviews_that_cannot_be_read_say_why) {
  struct Case {
    std::string desc;
    std::string body;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"not JSON", "<html>", "the request body is not JSON"},
      {"empty", "", "the request body is not JSON"},
      {"admission v1beta1",
       R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"u"}})",
       "expected an admission.k8s.io/v1 AdmissionReview, got admission.k8s.io/v1beta1"},
      {"another kind", R"({"apiVersion":"v1","kind":"Status"})", "got v1 Status"},
      {"no uid", R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}})",
       "no request or no request.uid"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto r = decodeReview(c.body);
      BOOST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error().message.find(c.expected) != std::string::npos, r.error().message);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_review_is_answered_with_uid_status_and_warnings) {
  Verdict v{false, 403, "Forbidden", "no \"way\"", {"careful"}};
  auto out = json::parse(encodeReview("u-9", v));
  BOOST_REQUIRE(out.has_value());
  BOOST_TEST(out->find("apiVersion")->text() == "admission.k8s.io/v1");
  const json::Value* response = out->find("response");
  BOOST_TEST(response->find("uid")->text() == "u-9");
  BOOST_TEST(!response->find("allowed")->boolValue());
  BOOST_TEST(response->find("status")->find("code")->text() == "403");
  BOOST_TEST(response->find("status")->find("message")->text() == "no \"way\"");
  BOOST_TEST(response->find("warnings")->items()[0].text() == "careful");
}

BOOST_AUTO_TEST_CASE(each_check_reads_what_metallbs_webhook_lists) {
  struct Case {
    std::string desc;
    std::string kind;
    std::string version;
    std::string operation;
    std::string sub_resource;
    Needs needs;
  };
  const std::vector<Case> cases = {
      {"pool create", "IPAddressPool", "v1beta1", "CREATE", "", {.pools = true}},
      {"pool delete", "IPAddressPool", "v1beta1", "DELETE", "", {}},
      {"pool status", "IPAddressPool", "v1beta1", "UPDATE", "status", {}},
      {"l2 update",
       "L2Advertisement",
       "v1beta1",
       "UPDATE",
       "",
       {.pools = true, .l2_advertisements = true}},
      {"bgp ad",
       "BGPAdvertisement",
       "v1beta1",
       "CREATE",
       "",
       {.pools = true, .bgp_advertisements = true, .nodes = true}},
      {"peer", "BGPPeer", "v1beta2", "CREATE", "", {.peers = true, .nodes = true}},
      {"peer of another version", "BGPPeer", "v1beta1", "CREATE", "", {}},
      {"community", "Community", "v1beta1", "UPDATE", "", {.communities = true}},
      {"bfd create", "BFDProfile", "v1beta1", "CREATE", "", {}},
      {"bfd delete", "BFDProfile", "v1beta1", "DELETE", "", {.peers = true}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto r =
          decodeReview(review(c.kind, c.version, c.operation, kNs, "{}", "null", c.sub_resource));
      BOOST_REQUIRE(r.has_value());
      const Route& at = c.kind == "BGPPeer" ? route("BGPPeer") : route(c.kind);
      BOOST_TEST((needsFor(at, *r) == c.needs));
    }
  }
}

struct VerdictCase {
  std::string desc;
  std::string route;  ///< kind of the route the request is sent to
  std::string body;
  bool allowed;
  int code;
  std::string message;  ///< expected substring ("" = any)
  std::vector<std::string> warnings;
};

std::vector<VerdictCase> verdictCases() {
  const std::string bfd = R"({"apiVersion":"metallb.io/v1beta1","kind":"BFDProfile",)"
                          R"("metadata":{"name":"fast","namespace":"metallb-system"}})";
  const std::string mp_peer =
      R"({"apiVersion":"metallb.io/v1beta2","kind":"BGPPeer","metadata":{"name":"p",)"
      R"("namespace":"elsewhere"},"spec":{"myASN":1,"peerASN":2,"peerAddress":"10.1.1.1",)"
      R"("disableMP":true}})";
  const std::string bfd_peer =
      R"({"apiVersion":"metallb.io/v1beta2","kind":"BGPPeer","metadata":{"name":"p2",)"
      R"("namespace":"metallb-system"},"spec":{"myASN":64500,"peerASN":2,"peerAddress":"10.1.1.2",)"
      R"("bfdProfile":"not-yet"}})";
  const std::string long_password =
      R"({"apiVersion":"metallb.io/v1beta2","kind":"BGPPeer","metadata":{"name":"p3",)"
      R"("namespace":"metallb-system"},"spec":{"myASN":64500,"peerASN":2,"peerAddress":"10.1.1.3",)"
      R"("password":")" +
      std::string(65536, 'x') + R"("}})";
  std::string long_password_mp = long_password;
  long_password_mp.insert(long_password_mp.size() - 2, R"(,"disableMP":true)");
  const std::string aggregation =
      R"({"apiVersion":"metallb.io/v1beta1","kind":"BGPAdvertisement","metadata":{"name":"ad",)"
      R"("namespace":"metallb-system"},"spec":{"ipAddressPools":["a"],"aggregationLength":8}})";
  return {
      {"overlap with an existing pool",
       "IPAddressPool",
       review("IPAddressPool", "v1beta1", "CREATE", kNs, poolJson("b", kNs, "10.0.1.0/24")),
       false,
       403,
       R"(CIDR "10.0.1.0/24" in pool "b" overlaps with already defined CIDR "10.0.0.0/16")",
       {}},
      {"a disjoint pool",
       "IPAddressPool",
       review("IPAddressPool", "v1beta1", "CREATE", kNs, poolJson("b", kNs, "10.1.0.0/24")),
       true,
       200,
       "",
       {}},
      {"an update replaces the pool it changes",
       "IPAddressPool",
       review("IPAddressPool", "v1beta1", "UPDATE", kNs, poolJson("a", kNs, "10.0.0.0/24")),
       true,
       200,
       "",
       {}},
      {"created outside the MetalLB namespace",
       "IPAddressPool",
       review("IPAddressPool", "v1beta1", "CREATE", "default",
              poolJson("b", "default", "10.9.0.0/24")),
       false,
       403,
       "resource must be created in metallb-system namespace",
       {}},
      {"a field error",
       "IPAddressPool",
       review("IPAddressPool", "v1beta1", "CREATE", kNs, poolJson("b", kNs, "10.0.0.300/24")),
       false,
       403,
       "10.0.0.300/24",
       {}},
      {"a wrongly typed object",
       "IPAddressPool",
       review("IPAddressPool", "v1beta1", "CREATE", kNs,
              R"({"apiVersion":"metallb.io/v1beta1","kind":"IPAddressPool",)"
              R"("metadata":{"name":"b"},"spec":{"addresses":"10.0.0.0/8"}})"),
       false,
       400,
       "decoding IPAddressPool metallb-system/x: spec.addresses",
       {}},
      {"the status subresource is never blocked",
       "IPAddressPool",
       review("IPAddressPool", "v1beta1", "UPDATE", kNs, R"({"status":"garbage"})", "null",
              "status"),
       true,
       200,
       "not checked",
       {}},
      {"a kind the path does not own is refused, not let through unchecked",
       "IPAddressPool",
       review("ServiceL2Status", "v1beta1", "CREATE", kNs, R"({"anything":1})"),
       false,
       400,
       "/validate-metallb-io-v1beta1-ipaddresspool validates metallb.io/v1beta1 IPAddressPool, "
       "not metallb.io/v1beta1 ServiceL2Status",
       {}},
      {"a pool review whose kind says BGPPeer",
       "IPAddressPool",
       review("BGPPeer", "v1beta1", "CREATE", kNs, poolJson("b", kNs, "10.1.0.0/24")),
       false,
       400,
       "validates metallb.io/v1beta1 IPAddressPool, not metallb.io/v1beta1 BGPPeer",
       {}},
      {"no request.kind",
       "IPAddressPool",
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",)"
       R"("operation":"CREATE","namespace":"metallb-system","name":"b","object":)" +
           poolJson("b", kNs, "10.0.1.0/24") + "}}",
       false,
       400,
       "validates metallb.io/v1beta1 IPAddressPool; the review has no request.kind",
       {}},
      {"the right kind of another group",
       "IPAddressPool",
       [] {
         std::string r =
             review("IPAddressPool", "v1beta1", "CREATE", kNs, poolJson("b", kNs, "10.1.0.0/24"));
         r.replace(r.find("metallb.io"), 10, "example.com");
         return r;
       }(),
       false,
       400,
       "not example.com/v1beta1 IPAddressPool",
       {}},
      {"an object of another kind than the request says",
       "IPAddressPool",
       review("IPAddressPool", "v1beta1", "CREATE", kNs,
              R"({"apiVersion":"metallb.io/v1beta2","kind":"BGPPeer","metadata":{"name":"b"}})"),
       false,
       400,
       "validates metallb.io/v1beta1 IPAddressPool; request.object has kind BGPPeer",
       {}},
      {"an old object of another kind than the request says",
       "BFDProfile",
       review("BFDProfile", "v1beta1", "DELETE", kNs, "null", poolJson("fast", kNs, "x")),
       false,
       400,
       "request.oldObject has kind IPAddressPool",
       {}},
      {"another version of the kind",
       "BGPPeer",
       review("BGPPeer", "v1beta1", "CREATE", kNs, "{}"),
       false,
       400,
       "/validate-metallb-io-v1beta2-bgppeer validates metallb.io/v1beta2 BGPPeer, not v1beta1",
       {}},
      {"disableMP: warned and admitted unchecked",
       "BGPPeer",
       review("BGPPeer", "v1beta2", "CREATE", "elsewhere", mp_peer),
       true,
       200,
       "",
       {"disable mp is deprecated and has no effect since it's the default behavior now"}},
      {"a BFD profile created later is not an error",
       "BGPPeer",
       review("BGPPeer", "v1beta2", "CREATE", kNs, bfd_peer),
       true,
       200,
       "",
       {}},
      {"a password longer than a TCP-MD5 key",
       "BGPPeer",
       review("BGPPeer", "v1beta2", "CREATE", kNs, long_password),
       false,
       403,
       R"(password for peer "metallb-system"/"p3" is 65536 bytes long; TCP-MD5 keys are at most )"
       "80 bytes",
       {}},
      {"disableMP does not let a value FRR refuses through",
       "BGPPeer",
       review("BGPPeer", "v1beta2", "CREATE", kNs, long_password_mp),
       false,
       403,
       "is 65536 bytes long",
       {}},
      {"aggregation shorter than the pool's prefix",
       "BGPAdvertisement",
       review("BGPAdvertisement", "v1beta1", "CREATE", kNs, aggregation),
       false,
       403,
       "invalid aggregation length 8: prefix 16 in this pool is more specific",
       {}},
      {"deleting a BFD profile in use",
       "BFDProfile",
       review("BFDProfile", "v1beta1", "DELETE", kNs, "null", bfd),
       false,
       403,
       "failed to delete BFDProfile fast, used by BGPPeer tor",
       {}},
      {"deleting a pool",
       "IPAddressPool",
       review("IPAddressPool", "v1beta1", "DELETE", kNs, "null", poolJson("a", kNs, "x")),
       true,
       200,
       "",
       {}},
  };
}

BOOST_AUTO_TEST_CASE(verdicts_carry_metallbs_messages) {
  for (const auto& c : verdictCases()) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto r = decodeReview(c.body);
      BOOST_REQUIRE(r.has_value());
      const Verdict v = admit(route(c.route), *r, existing(), {});
      BOOST_TEST(v.allowed == c.allowed, v.message);
      BOOST_TEST(v.code == c.code);
      BOOST_TEST(v.message.find(c.message) != std::string::npos, v.message);
      BOOST_TEST(v.warnings == c.warnings, boost::test_tools::per_element());
    }
  }
}

std::string adJson(const std::string& communities, const std::string& node_selectors) {
  return R"({"apiVersion":"metallb.io/v1beta1","kind":"BGPAdvertisement","metadata":{"name":)"
         R"("ad","namespace":"metallb-system"},"spec":{"ipAddressPools":["a"],"communities":)" +
         communities + R"(,"nodeSelectors":)" + node_selectors + "}}";
}

std::string peerJson(const std::string& extra) {
  return R"({"apiVersion":"metallb.io/v1beta2","kind":"BGPPeer","metadata":{"name":"p3",)"
         R"("namespace":"metallb-system"},"spec":{"myASN":64500,"peerASN":2,)"
         R"("peerAddress":"10.1.1.3")" +
         extra + "}}";
}

// Each row names the MetalLB behaviour it follows. The webhooks parse the objects they list with
// every node and no per-node filter, after resetTransientErrorsFields blanked what may point at
// an object created later; whatever error remains denies.
BOOST_AUTO_TEST_CASE(webhook_tolerance_follows_reset_transient_errors_fields) {
  struct Case {
    std::string desc;
    std::string kind;
    std::string object;
    bool allowed;
    std::string message;
  };
  const std::string rack1 = R"([{"matchLabels":{"rack":"1"}}])";
  const std::string rack9 = R"([{"matchLabels":{"rack":"9"}}])";
  const std::vector<Case> cases = {
      {"resetTransientErrorsFields: an undefined alias selecting no node is admitted",
       "BGPAdvertisement", adJson(R"(["no-such"])", rack9), true, ""},
      {"resetTransientErrorsFields: an undefined alias selecting a node is admitted too",
       "BGPAdvertisement", adJson(R"(["no-such"])", rack1), true, ""},
      {"getCommunityValue: a malformed literal is ErrInvalidCommunityValue, denied",
       "BGPAdvertisement", adJson(R"(["1:x"])", rack9), false,
       R"(invalid community "1:x" in BGP advertisement: invalid community value)"},
      {"getCommunityValue: a string with ':' is not blanked, its TransientError denies",
       "BGPAdvertisement", adJson(R"(["1:2:3"])", rack9), false, "invalid community format: 1:2:3"},
      {"resetTransientErrorsFields: a password Secret created later is admitted", "BGPPeer",
       peerJson(R"(,"passwordSecret":{"name":"later","namespace":"metallb-system"})"), true, ""},
      {"resetTransientErrorsFields: a BFD profile created later is admitted", "BGPPeer",
       peerJson(R"(,"bfdProfile":"later")"), true, ""},
      {"peerFromCR: a peer's own error denies even where it selects no node", "BGPPeer",
       peerJson(R"(,"holdTime":"1s","nodeSelectors":)" + rack9), false,
       R"(invalid hold time "1s": must be 0 or >=3s)"},
  };
  config::Inputs in = existing();
  api::Node n1;
  n1.metadata.name = "n1";
  n1.metadata.labels = {{"rack", "1"}};
  in.nodes = {n1};
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto r = decodeReview(
          review(c.kind, c.kind == "BGPPeer" ? "v1beta2" : "v1beta1", "CREATE", kNs, c.object));
      BOOST_REQUIRE(r.has_value());
      const Verdict v = admit(route(c.kind), *r, in, {});
      BOOST_TEST(v.allowed == c.allowed, v.message);
      BOOST_TEST(v.message.find(c.message) != std::string::npos, v.message);
    }
  }
}

}  // namespace
}  // namespace ingot::controller::webhook
