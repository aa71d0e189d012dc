// SPDX-License-Identifier: Apache-2.0
// The Kubernetes object model Ingot reads and writes: the metallb.io kinds, the core objects it
// uses, and their shared pieces. Plain values; a described struct's fields() table gives each
// member its JSON key and omission rule (api/describe.h), from which api/codec.h decodes and
// encodes it and api/convert.h converts it. Field validation lives in api/validate.h.
// Optional fields are std::optional where "unset" and "zero" differ in MetalLB's semantics (e.g.
// autoAssign defaults to true), plain values otherwise.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "api/describe.h"

namespace ingot::api {

using StringMap = std::map<std::string, std::string>;

/// OwnerReference points at the object that owns this one (garbage collection).
struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;
  static constexpr auto fields() {
    return std::tuple(field("apiVersion", &OwnerReference::api_version, Emit::Always),
                      field("kind", &OwnerReference::kind, Emit::Always),
                      field("name", &OwnerReference::name, Emit::Always),
                      field("uid", &OwnerReference::uid, Emit::Always),
                      field("controller", &OwnerReference::controller),
                      field("blockOwnerDeletion", &OwnerReference::block_owner_deletion));
  }
  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

/// ObjectMeta is the subset of metav1.ObjectMeta Ingot uses.
struct ObjectMeta {
  std::string name;
  std::string namespace_;  ///< "namespace" is a keyword
  std::string generate_name;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::string creation_timestamp;
  std::optional<std::string> deletion_timestamp;
  StringMap labels;
  StringMap annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  /// label returns the value of the label key ("" when the object has none).
  [[nodiscard]] std::string label(const std::string& key) const {
    auto it = labels.find(key);
    return it == labels.end() ? std::string() : it->second;
  }
  static constexpr auto fields() {
    return std::tuple(
        field("name", &ObjectMeta::name), field("generateName", &ObjectMeta::generate_name),
        field("namespace", &ObjectMeta::namespace_), field("uid", &ObjectMeta::uid),
        field("resourceVersion", &ObjectMeta::resource_version),
        field("generation", &ObjectMeta::generation),
        field("creationTimestamp", &ObjectMeta::creation_timestamp),
        field("deletionTimestamp", &ObjectMeta::deletion_timestamp),
        field("labels", &ObjectMeta::labels), field("annotations", &ObjectMeta::annotations),
        field("ownerReferences", &ObjectMeta::owner_references),
        field("finalizers", &ObjectMeta::finalizers), ignored("selfLink"),
        ignored("deletionGracePeriodSeconds"), ignored("managedFields"));
  }
  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};

/// LabelSelectorRequirement is one matchExpressions entry. op is the operator as written:
/// "In", "NotIn", "Exists" or "DoesNotExist" (validation rejects anything else).
struct LabelSelectorRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
  static constexpr auto fields() {
    return std::tuple(field("key", &LabelSelectorRequirement::key, Emit::Always),
                      field("operator", &LabelSelectorRequirement::op, Emit::Always),
                      field("values", &LabelSelectorRequirement::values));
  }
  friend bool operator==(const LabelSelectorRequirement&,
                         const LabelSelectorRequirement&) = default;
};

/// LabelSelector is metav1.LabelSelector: matchLabels AND matchExpressions. An empty selector
/// matches everything (see api/selector.h for the semantics).
struct LabelSelector {
  StringMap match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
  static constexpr auto fields() {
    return std::tuple(field("matchLabels", &LabelSelector::match_labels),
                      field("matchExpressions", &LabelSelector::match_expressions));
  }
  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;
};

/// Duration is a Kubernetes metav1.Duration: Go duration text ("90s", "1m30s", "500ms") and its
/// value. text is kept so that encoding reproduces what was decoded.
struct Duration {
  int64_t nanoseconds = 0;
  std::string text;
  friend bool operator==(const Duration&, const Duration&) = default;
};

/// Condition is metav1.Condition.
struct Condition {
  std::string type;
  std::string status;  ///< "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::string last_transition_time;
  int64_t observed_generation = 0;
  static constexpr auto fields() {
    return std::tuple(field("type", &Condition::type, Emit::Always),
                      field("status", &Condition::status, Emit::Always),
                      field("observedGeneration", &Condition::observed_generation),
                      field("lastTransitionTime", &Condition::last_transition_time, Emit::Always),
                      field("reason", &Condition::reason, Emit::Always),
                      field("message", &Condition::message, Emit::Always));
  }
  friend bool operator==(const Condition&, const Condition&) = default;
};

// ---------------------------------------------------------------------------------------------
// metallb.io/v1beta1 and v1beta2

struct ServiceAllocation {
  int32_t priority = 0;
  std::vector<std::string> namespaces;
  std::vector<LabelSelector> namespace_selectors;
  std::vector<LabelSelector> service_selectors;
  static constexpr auto fields() {
    return std::tuple(field("priority", &ServiceAllocation::priority),
                      field("namespaces", &ServiceAllocation::namespaces),
                      field("namespaceSelectors", &ServiceAllocation::namespace_selectors),
                      field("serviceSelectors", &ServiceAllocation::service_selectors));
  }
  friend bool operator==(const ServiceAllocation&, const ServiceAllocation&) = default;
};

struct IPAddressPoolSpec {
  std::vector<std::string> addresses;
  std::optional<bool> auto_assign;  ///< unset = true
  bool avoid_buggy_ips = false;
  std::optional<ServiceAllocation> service_allocation;
  static constexpr auto fields() {
    return std::tuple(field("addresses", &IPAddressPoolSpec::addresses),
                      field("autoAssign", &IPAddressPoolSpec::auto_assign),
                      field("avoidBuggyIPs", &IPAddressPoolSpec::avoid_buggy_ips),
                      field("serviceAllocation", &IPAddressPoolSpec::service_allocation));
  }
  friend bool operator==(const IPAddressPoolSpec&, const IPAddressPoolSpec&) = default;
};

struct IPAddressPoolStatus {
  int64_t assigned_ipv4 = 0;
  int64_t assigned_ipv6 = 0;
  int64_t available_ipv4 = 0;
  int64_t available_ipv6 = 0;
  static constexpr auto fields() {
    return std::tuple(field("assignedIPv4", &IPAddressPoolStatus::assigned_ipv4, Emit::Always),
                      field("assignedIPv6", &IPAddressPoolStatus::assigned_ipv6, Emit::Always),
                      field("availableIPv4", &IPAddressPoolStatus::available_ipv4, Emit::Always),
                      field("availableIPv6", &IPAddressPoolStatus::available_ipv6, Emit::Always));
  }
  friend bool operator==(const IPAddressPoolStatus&, const IPAddressPoolStatus&) = default;
};

struct IPAddressPool {
  ObjectMeta metadata;
  IPAddressPoolSpec spec;
  std::optional<IPAddressPoolStatus> status;
  static constexpr auto fields() {
    return std::tuple(field("metadata", &IPAddressPool::metadata, Emit::Always),
                      field("spec", &IPAddressPool::spec, Emit::Always),
                      field("status", &IPAddressPool::status));
  }
  friend bool operator==(const IPAddressPool&, const IPAddressPool&) = default;
};

struct PreferredNodeSelector {
  int32_t weight = 0;
  LabelSelector preference;
  static constexpr auto fields() {
    return std::tuple(field("weight", &PreferredNodeSelector::weight, Emit::Always),
                      field("preference", &PreferredNodeSelector::preference, Emit::Always));
  }
  friend bool operator==(const PreferredNodeSelector&, const PreferredNodeSelector&) = default;
};

struct L2AdvertisementSpec {
  std::vector<std::string> ip_address_pools;
  std::vector<LabelSelector> ip_address_pool_selectors;
  std::vector<LabelSelector> node_selectors;
  std::vector<std::string> interfaces;
  std::vector<LabelSelector> service_selectors;
  std::vector<PreferredNodeSelector> preferred_node_selectors;
  static constexpr auto fields() {
    return std::tuple(
        field("ipAddressPools", &L2AdvertisementSpec::ip_address_pools),
        field("ipAddressPoolSelectors", &L2AdvertisementSpec::ip_address_pool_selectors),
        field("nodeSelectors", &L2AdvertisementSpec::node_selectors),
        field("interfaces", &L2AdvertisementSpec::interfaces),
        field("serviceSelectors", &L2AdvertisementSpec::service_selectors),
        field("preferredNodeSelectors", &L2AdvertisementSpec::preferred_node_selectors));
  }
  friend bool operator==(const L2AdvertisementSpec&, const L2AdvertisementSpec&) = default;
};

struct L2Advertisement {
  ObjectMeta metadata;
  L2AdvertisementSpec spec;
  static constexpr auto fields() {
    return std::tuple(field("metadata", &L2Advertisement::metadata, Emit::Always),
                      field("spec", &L2Advertisement::spec, Emit::Always),
                      group("status", Emit::OmitEmpty));
  }
  friend bool operator==(const L2Advertisement&, const L2Advertisement&) = default;
};

struct BGPAdvertisementSpec {
  std::optional<int32_t> aggregation_length;     ///< unset = 32
  std::optional<int32_t> aggregation_length_v6;  ///< unset = 128
  uint32_t local_pref = 0;                       ///< 0 = not set
  std::vector<std::string> communities;
  std::vector<std::string> ip_address_pools;
  std::vector<LabelSelector> ip_address_pool_selectors;
  std::vector<LabelSelector> node_selectors;
  std::vector<std::string> peers;
  std::vector<LabelSelector> service_selectors;
  static constexpr auto fields() {
    return std::tuple(
        field("aggregationLength", &BGPAdvertisementSpec::aggregation_length),
        field("aggregationLengthV6", &BGPAdvertisementSpec::aggregation_length_v6),
        field("localPref", &BGPAdvertisementSpec::local_pref),
        field("communities", &BGPAdvertisementSpec::communities),
        field("ipAddressPools", &BGPAdvertisementSpec::ip_address_pools),
        field("ipAddressPoolSelectors", &BGPAdvertisementSpec::ip_address_pool_selectors),
        field("nodeSelectors", &BGPAdvertisementSpec::node_selectors),
        field("peers", &BGPAdvertisementSpec::peers),
        field("serviceSelectors", &BGPAdvertisementSpec::service_selectors));
  }
  friend bool operator==(const BGPAdvertisementSpec&, const BGPAdvertisementSpec&) = default;
};

struct BGPAdvertisement {
  ObjectMeta metadata;
  BGPAdvertisementSpec spec;
  static constexpr auto fields() {
    return std::tuple(field("metadata", &BGPAdvertisement::metadata, Emit::Always),
                      field("spec", &BGPAdvertisement::spec, Emit::Always),
                      group("status", Emit::OmitEmpty));
  }
  friend bool operator==(const BGPAdvertisement&, const BGPAdvertisement&) = default;
};

struct SecretReference {
  std::string name;
  std::string namespace_;
  static constexpr auto fields() {
    return std::tuple(field("name", &SecretReference::name),
                      field("namespace", &SecretReference::namespace_));
  }
  friend bool operator==(const SecretReference&, const SecretReference&) = default;
};

/// BGPPeerSpec is the v1beta2 (storage) shape; v1beta1 converts into it (api/convert.h).
struct BGPPeerSpec {
  uint32_t my_asn = 0;
  uint32_t peer_asn = 0;
  std::string dynamic_asn;  ///< "", "internal" or "external"
  std::optional<uint32_t> local_asn;
  std::string peer_address;
  std::string interface;
  std::string source_address;
  std::optional<uint16_t> peer_port;  ///< unset = 179
  std::optional<Duration> hold_time;
  std::optional<Duration> keepalive_time;
  std::optional<Duration> connect_time;
  std::string router_id;
  std::vector<LabelSelector> node_selectors;
  std::string password;
  std::optional<SecretReference> password_secret;
  std::string bfd_profile;
  bool enable_graceful_restart = false;
  bool ebgp_multi_hop = false;
  std::string vrf;
  bool disable_mp = false;
  bool dual_stack_address_family = false;
  static constexpr auto fields() {
    return std::tuple(
        field("myASN", &BGPPeerSpec::my_asn, Emit::Always),
        field("peerASN", &BGPPeerSpec::peer_asn), field("dynamicASN", &BGPPeerSpec::dynamic_asn),
        field("localASN", &BGPPeerSpec::local_asn),
        field("peerAddress", &BGPPeerSpec::peer_address),
        field("interface", &BGPPeerSpec::interface),
        field("sourceAddress", &BGPPeerSpec::source_address),
        field("peerPort", &BGPPeerSpec::peer_port), field("holdTime", &BGPPeerSpec::hold_time),
        field("keepaliveTime", &BGPPeerSpec::keepalive_time),
        field("connectTime", &BGPPeerSpec::connect_time),
        field("routerID", &BGPPeerSpec::router_id),
        field("nodeSelectors", &BGPPeerSpec::node_selectors),
        field("password", &BGPPeerSpec::password),
        field("passwordSecret", &BGPPeerSpec::password_secret),
        field("bfdProfile", &BGPPeerSpec::bfd_profile),
        field("enableGracefulRestart", &BGPPeerSpec::enable_graceful_restart),
        field("ebgpMultiHop", &BGPPeerSpec::ebgp_multi_hop), field("vrf", &BGPPeerSpec::vrf),
        field("disableMP", &BGPPeerSpec::disable_mp),
        field("dualStackAddressFamily", &BGPPeerSpec::dual_stack_address_family));
  }
  friend bool operator==(const BGPPeerSpec&, const BGPPeerSpec&) = default;
};

struct BGPPeer {
  ObjectMeta metadata;
  BGPPeerSpec spec;
  static constexpr auto fields() {
    return std::tuple(field("metadata", &BGPPeer::metadata, Emit::Always),
                      field("spec", &BGPPeer::spec, Emit::Always),
                      group("status", Emit::OmitEmpty));
  }
  friend bool operator==(const BGPPeer&, const BGPPeer&) = default;
};

/// BGPPeerV1beta1Spec is the deprecated v1beta1 shape. Its nodeSelectors use the legacy selector
/// shape {matchLabels, matchExpressions{key, operator, values}}, which has the same fields as
/// LabelSelector, so LabelSelector is reused.
struct BGPPeerV1beta1Spec {
  uint32_t my_asn = 0;
  uint32_t peer_asn = 0;
  std::string peer_address;
  std::string source_address;
  std::optional<uint16_t> peer_port;
  std::optional<Duration> hold_time;
  std::optional<Duration> keepalive_time;
  std::string router_id;
  std::vector<LabelSelector> node_selectors;
  std::string password;
  std::string bfd_profile;
  bool ebgp_multi_hop = false;
  static constexpr auto fields() {
    return std::tuple(field("myASN", &BGPPeerV1beta1Spec::my_asn, Emit::Always),
                      field("peerASN", &BGPPeerV1beta1Spec::peer_asn, Emit::Always),
                      field("peerAddress", &BGPPeerV1beta1Spec::peer_address, Emit::Always),
                      field("sourceAddress", &BGPPeerV1beta1Spec::source_address),
                      field("peerPort", &BGPPeerV1beta1Spec::peer_port),
                      field("holdTime", &BGPPeerV1beta1Spec::hold_time),
                      field("keepaliveTime", &BGPPeerV1beta1Spec::keepalive_time),
                      field("routerID", &BGPPeerV1beta1Spec::router_id),
                      field("nodeSelectors", &BGPPeerV1beta1Spec::node_selectors),
                      field("password", &BGPPeerV1beta1Spec::password),
                      field("bfdProfile", &BGPPeerV1beta1Spec::bfd_profile),
                      field("ebgpMultiHop", &BGPPeerV1beta1Spec::ebgp_multi_hop));
  }
  friend bool operator==(const BGPPeerV1beta1Spec&, const BGPPeerV1beta1Spec&) = default;
};

struct BGPPeerV1beta1 {
  ObjectMeta metadata;
  BGPPeerV1beta1Spec spec;
  static constexpr auto fields() {
    return std::tuple(field("metadata", &BGPPeerV1beta1::metadata, Emit::Always),
                      field("spec", &BGPPeerV1beta1::spec, Emit::Always),
                      group("status", Emit::OmitEmpty));
  }
  friend bool operator==(const BGPPeerV1beta1&, const BGPPeerV1beta1&) = default;
};

struct BFDProfileSpec {
  std::optional<uint32_t> receive_interval;
  std::optional<uint32_t> transmit_interval;
  std::optional<uint32_t> detect_multiplier;
  std::optional<uint32_t> echo_interval;
  std::optional<bool> echo_mode;
  std::optional<bool> passive_mode;
  std::optional<uint32_t> minimum_ttl;
  static constexpr auto fields() {
    return std::tuple(field("receiveInterval", &BFDProfileSpec::receive_interval),
                      field("transmitInterval", &BFDProfileSpec::transmit_interval),
                      field("detectMultiplier", &BFDProfileSpec::detect_multiplier),
                      field("echoInterval", &BFDProfileSpec::echo_interval),
                      field("echoMode", &BFDProfileSpec::echo_mode),
                      field("passiveMode", &BFDProfileSpec::passive_mode),
                      field("minimumTtl", &BFDProfileSpec::minimum_ttl));
  }
  friend bool operator==(const BFDProfileSpec&, const BFDProfileSpec&) = default;
};

struct BFDProfile {
  ObjectMeta metadata;
  BFDProfileSpec spec;
  static constexpr auto fields() {
    return std::tuple(field("metadata", &BFDProfile::metadata, Emit::Always),
                      field("spec", &BFDProfile::spec, Emit::Always),
                      group("status", Emit::OmitEmpty));
  }
  friend bool operator==(const BFDProfile&, const BFDProfile&) = default;
};

struct CommunityAlias {
  std::string name;
  std::string value;
  static constexpr auto fields() {
    return std::tuple(field("name", &CommunityAlias::name), field("value", &CommunityAlias::value));
  }
  friend bool operator==(const CommunityAlias&, const CommunityAlias&) = default;
};

struct Community {
  ObjectMeta metadata;
  std::vector<CommunityAlias> communities;  ///< spec.communities
  static constexpr auto fields() {
    return std::tuple(field("metadata", &Community::metadata, Emit::Always),
                      group("spec", Emit::Always, field("communities", &Community::communities)),
                      group("status", Emit::OmitEmpty));
  }
  friend bool operator==(const Community&, const Community&) = default;
};

struct ServiceL2StatusStatus {
  std::string node;
  std::string service_name;
  std::string service_namespace;
  std::vector<std::string> interfaces;  ///< encoded as [{name: X}]
  static constexpr auto fields() {
    return std::tuple(
        field("node", &ServiceL2StatusStatus::node),
        field("serviceName", &ServiceL2StatusStatus::service_name),
        field("serviceNamespace", &ServiceL2StatusStatus::service_namespace),
        wrapped("interfaces", &ServiceL2StatusStatus::interfaces, "name", Emit::Always));
  }
  friend bool operator==(const ServiceL2StatusStatus&, const ServiceL2StatusStatus&) = default;
};

struct ServiceL2Status {
  ObjectMeta metadata;
  ServiceL2StatusStatus status;
  static constexpr auto fields() {
    return std::tuple(field("metadata", &ServiceL2Status::metadata, Emit::Always),
                      group("spec", Emit::OmitEmpty), field("status", &ServiceL2Status::status));
  }
  friend bool operator==(const ServiceL2Status&, const ServiceL2Status&) = default;
};

struct ServiceBGPStatusStatus {
  std::string node;
  std::string service_name;
  std::string service_namespace;
  std::vector<std::string> peers;
  static constexpr auto fields() {
    return std::tuple(field("node", &ServiceBGPStatusStatus::node),
                      field("serviceName", &ServiceBGPStatusStatus::service_name),
                      field("serviceNamespace", &ServiceBGPStatusStatus::service_namespace),
                      field("peers", &ServiceBGPStatusStatus::peers));
  }
  friend bool operator==(const ServiceBGPStatusStatus&, const ServiceBGPStatusStatus&) = default;
};

struct ServiceBGPStatus {
  ObjectMeta metadata;
  ServiceBGPStatusStatus status;
  static constexpr auto fields() {
    return std::tuple(field("metadata", &ServiceBGPStatus::metadata, Emit::Always),
                      group("spec", Emit::OmitEmpty), field("status", &ServiceBGPStatus::status));
  }
  friend bool operator==(const ServiceBGPStatus&, const ServiceBGPStatus&) = default;
};

struct ConfigurationStateStatus {
  std::vector<Condition> conditions;
  std::string result;  ///< "Valid", "Invalid", "Unknown"
  std::string error_summary;
  static constexpr auto fields() {
    return std::tuple(field("conditions", &ConfigurationStateStatus::conditions),
                      field("result", &ConfigurationStateStatus::result),
                      field("errorSummary", &ConfigurationStateStatus::error_summary));
  }
  friend bool operator==(const ConfigurationStateStatus&,
                         const ConfigurationStateStatus&) = default;
};

struct ConfigurationState {
  ObjectMeta metadata;
  ConfigurationStateStatus status;
  static constexpr auto fields() {
    return std::tuple(field("metadata", &ConfigurationState::metadata, Emit::Always),
                      field("status", &ConfigurationState::status));
  }
  friend bool operator==(const ConfigurationState&, const ConfigurationState&) = default;
};

// ---------------------------------------------------------------------------------------------
// Core Kubernetes objects (the fields Ingot uses; others are ignored on decode).

struct ServicePort {
  std::string name;
  std::string protocol = "TCP";
  int32_t port = 0;
  std::string target_port;  ///< int or name, kept as text
  int32_t node_port = 0;
  friend bool operator==(const ServicePort&, const ServicePort&) = default;
};

struct ServiceSpec {
  std::string type;  ///< "ClusterIP", "NodePort", "LoadBalancer", "ExternalName"
  std::string cluster_ip;
  std::vector<std::string> cluster_ips;
  std::vector<std::string> ip_families;         ///< "IPv4" / "IPv6"
  std::optional<std::string> ip_family_policy;  ///< SingleStack, PreferDualStack, RequireDualStack
  std::string load_balancer_ip;
  std::optional<std::string> load_balancer_class;
  std::string external_traffic_policy;  ///< "Cluster" (or "") / "Local"
  StringMap selector;
  std::vector<ServicePort> ports;
  friend bool operator==(const ServiceSpec&, const ServiceSpec&) = default;
};

struct LoadBalancerIngress {
  std::string ip;
  std::string hostname;
  std::optional<std::string> ip_mode;
  friend bool operator==(const LoadBalancerIngress&, const LoadBalancerIngress&) = default;
};

struct ServiceStatus {
  std::vector<LoadBalancerIngress> ingress;  ///< status.loadBalancer.ingress
  std::vector<Condition> conditions;         ///< status.conditions
  friend bool operator==(const ServiceStatus&, const ServiceStatus&) = default;
};

struct Service {
  ObjectMeta metadata;
  ServiceSpec spec;
  ServiceStatus status;
  friend bool operator==(const Service&, const Service&) = default;
};

struct EndpointConditions {
  std::optional<bool> ready;
  std::optional<bool> serving;
  std::optional<bool> terminating;
  friend bool operator==(const EndpointConditions&, const EndpointConditions&) = default;
};

struct Endpoint {
  std::vector<std::string> addresses;
  EndpointConditions conditions;
  std::optional<std::string> node_name;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

struct EndpointPort {
  std::optional<std::string> name;
  std::optional<std::string> protocol;
  std::optional<int32_t> port;
  friend bool operator==(const EndpointPort&, const EndpointPort&) = default;
};

/// EndpointSlice (discovery.k8s.io/v1). The owning Service is the label
/// kubernetes.io/service-name.
struct EndpointSlice {
  ObjectMeta metadata;
  std::string address_type;  ///< "IPv4", "IPv6", "FQDN"
  std::vector<Endpoint> endpoints;
  std::vector<EndpointPort> ports;
  friend bool operator==(const EndpointSlice&, const EndpointSlice&) = default;
};

struct NodeCondition {
  std::string type;
  std::string status;
  std::string reason;
  std::string message;
  friend bool operator==(const NodeCondition&, const NodeCondition&) = default;
};

struct NodeAddress {
  std::string type;  ///< "InternalIP", "ExternalIP", "Hostname"
  std::string address;
  friend bool operator==(const NodeAddress&, const NodeAddress&) = default;
};

/// NodeTaint is one entry of a Node's spec.taints.
struct NodeTaint {
  std::string key;
  std::string value;
  std::string effect;  ///< "NoSchedule", "PreferNoSchedule", "NoExecute"
  friend bool operator==(const NodeTaint&, const NodeTaint&) = default;
};

struct Node {
  ObjectMeta metadata;
  bool unschedulable = false;             ///< spec.unschedulable
  std::vector<NodeTaint> taints;          ///< spec.taints
  std::vector<NodeCondition> conditions;  ///< status.conditions
  std::vector<NodeAddress> addresses;     ///< status.addresses
  friend bool operator==(const Node&, const Node&) = default;
};

struct Namespace {
  ObjectMeta metadata;
  friend bool operator==(const Namespace&, const Namespace&) = default;
};

/// Pod is the part of a v1 Pod the agent reads: where it runs and its addresses (the memberlist
/// seeds are the pod IPs of the agents).
struct Pod {
  ObjectMeta metadata;
  std::string node_name;             ///< spec.nodeName
  std::string phase;                 ///< status.phase
  std::string pod_ip;                ///< status.podIP
  std::vector<std::string> pod_ips;  ///< status.podIPs[].ip
  bool ready = false;                ///< status.conditions: Ready is "True"
  friend bool operator==(const Pod&, const Pod&) = default;
};

/// Secret keeps data base64-encoded as on the wire; api/secret.h decodes values on demand.
struct Secret {
  ObjectMeta metadata;
  std::string type;
  StringMap data;         ///< base64 values
  StringMap string_data;  ///< plain values (write-only on the API, accepted in manifests)
  friend bool operator==(const Secret&, const Secret&) = default;
};

}  // namespace ingot::api
