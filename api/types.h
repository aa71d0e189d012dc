// SPDX-License-Identifier: Apache-2.0
// The Kubernetes object model Ingot reads and writes: the metallb.io kinds, the core objects it
// uses, and their shared pieces. Plain values only; decoding lives in api/codec.h, field
// validation in api/validate.h. Optional fields are std::optional where "unset" and "zero" differ
// in MetalLB's semantics (e.g. autoAssign defaults to true), plain values otherwise.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

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
  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};

/// LabelSelectorRequirement is one matchExpressions entry. op is the operator as written:
/// "In", "NotIn", "Exists" or "DoesNotExist" (validation rejects anything else).
struct LabelSelectorRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
  friend bool operator==(const LabelSelectorRequirement&,
                         const LabelSelectorRequirement&) = default;
};

/// LabelSelector is metav1.LabelSelector: matchLabels AND matchExpressions. An empty selector
/// matches everything (see api/selector.h for the semantics).
struct LabelSelector {
  StringMap match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
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
  friend bool operator==(const Condition&, const Condition&) = default;
};

// ---------------------------------------------------------------------------------------------
// metallb.io/v1beta1 and v1beta2

struct ServiceAllocation {
  int32_t priority = 0;
  std::vector<std::string> namespaces;
  std::vector<LabelSelector> namespace_selectors;
  std::vector<LabelSelector> service_selectors;
  friend bool operator==(const ServiceAllocation&, const ServiceAllocation&) = default;
};

struct IPAddressPoolSpec {
  std::vector<std::string> addresses;
  std::optional<bool> auto_assign;  ///< unset = true
  bool avoid_buggy_ips = false;
  std::optional<ServiceAllocation> service_allocation;
  friend bool operator==(const IPAddressPoolSpec&, const IPAddressPoolSpec&) = default;
};

struct IPAddressPoolStatus {
  int64_t assigned_ipv4 = 0;
  int64_t assigned_ipv6 = 0;
  int64_t available_ipv4 = 0;
  int64_t available_ipv6 = 0;
  friend bool operator==(const IPAddressPoolStatus&, const IPAddressPoolStatus&) = default;
};

struct IPAddressPool {
  ObjectMeta metadata;
  IPAddressPoolSpec spec;
  std::optional<IPAddressPoolStatus> status;
  friend bool operator==(const IPAddressPool&, const IPAddressPool&) = default;
};

struct PreferredNodeSelector {
  int32_t weight = 0;
  LabelSelector preference;
  friend bool operator==(const PreferredNodeSelector&, const PreferredNodeSelector&) = default;
};

struct L2AdvertisementSpec {
  std::vector<std::string> ip_address_pools;
  std::vector<LabelSelector> ip_address_pool_selectors;
  std::vector<LabelSelector> node_selectors;
  std::vector<std::string> interfaces;
  std::vector<LabelSelector> service_selectors;
  std::vector<PreferredNodeSelector> preferred_node_selectors;
  friend bool operator==(const L2AdvertisementSpec&, const L2AdvertisementSpec&) = default;
};

struct L2Advertisement {
  ObjectMeta metadata;
  L2AdvertisementSpec spec;
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
  friend bool operator==(const BGPAdvertisementSpec&, const BGPAdvertisementSpec&) = default;
};

struct BGPAdvertisement {
  ObjectMeta metadata;
  BGPAdvertisementSpec spec;
  friend bool operator==(const BGPAdvertisement&, const BGPAdvertisement&) = default;
};

struct SecretReference {
  std::string name;
  std::string namespace_;
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
  friend bool operator==(const BGPPeerSpec&, const BGPPeerSpec&) = default;
};

struct BGPPeer {
  ObjectMeta metadata;
  BGPPeerSpec spec;
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
  friend bool operator==(const BGPPeerV1beta1Spec&, const BGPPeerV1beta1Spec&) = default;
};

struct BGPPeerV1beta1 {
  ObjectMeta metadata;
  BGPPeerV1beta1Spec spec;
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
  friend bool operator==(const BFDProfileSpec&, const BFDProfileSpec&) = default;
};

struct BFDProfile {
  ObjectMeta metadata;
  BFDProfileSpec spec;
  friend bool operator==(const BFDProfile&, const BFDProfile&) = default;
};

struct CommunityAlias {
  std::string name;
  std::string value;
  friend bool operator==(const CommunityAlias&, const CommunityAlias&) = default;
};

struct Community {
  ObjectMeta metadata;
  std::vector<CommunityAlias> communities;  ///< spec.communities
  friend bool operator==(const Community&, const Community&) = default;
};

struct ServiceL2StatusStatus {
  std::string node;
  std::string service_name;
  std::string service_namespace;
  std::vector<std::string> interfaces;  ///< encoded as [{name: X}]
  friend bool operator==(const ServiceL2StatusStatus&, const ServiceL2StatusStatus&) = default;
};

struct ServiceL2Status {
  ObjectMeta metadata;
  ServiceL2StatusStatus status;
  friend bool operator==(const ServiceL2Status&, const ServiceL2Status&) = default;
};

struct ServiceBGPStatusStatus {
  std::string node;
  std::string service_name;
  std::string service_namespace;
  std::vector<std::string> peers;
  friend bool operator==(const ServiceBGPStatusStatus&, const ServiceBGPStatusStatus&) = default;
};

struct ServiceBGPStatus {
  ObjectMeta metadata;
  ServiceBGPStatusStatus status;
  friend bool operator==(const ServiceBGPStatus&, const ServiceBGPStatus&) = default;
};

struct ConfigurationStateStatus {
  std::vector<Condition> conditions;
  std::string result;  ///< "Valid", "Invalid", "Unknown"
  std::string error_summary;
  friend bool operator==(const ConfigurationStateStatus&,
                         const ConfigurationStateStatus&) = default;
};

struct ConfigurationState {
  ObjectMeta metadata;
  ConfigurationStateStatus status;
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
