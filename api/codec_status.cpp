// SPDX-License-Identifier: Apache-2.0
// metallb.io status-only kinds: ServiceL2Status, ServiceBGPStatus, ConfigurationState.
#include "api/codec_internal.h"
#include "api/object.h"

namespace ingot::api::codec {
namespace {

/// readServiceRef reads the node/serviceName/serviceNamespace triple both status kinds share.
template <typename S>
void readServiceRef(ObjectReader& r, S& s) {
  (void)r["node"].read(s.node);
  (void)r["serviceName"].read(s.service_name);
  (void)r["serviceNamespace"].read(s.service_namespace);
}

template <typename S>
void putServiceRef(Value& o, const S& s) {
  putString(o, "node", s.node);
  putString(o, "serviceName", s.service_name);
  putString(o, "serviceNamespace", s.service_namespace);
}

}  // namespace

void decodeKind(const Field& f, ServiceL2Status& out) {
  ObjectReader r(f, Unknown::Reject);
  readHeader(r, out, Unknown::Reject);
  ObjectReader spec(r["spec"], Unknown::Reject);
  ObjectReader status(r["status"], Unknown::Reject);
  readServiceRef(status, out.status);
  arrayOf(status["interfaces"], out.status.interfaces, [](const Field& item, std::string& name) {
    ObjectReader ir(item, Unknown::Reject);
    (void)ir["name"].read(name);
  });
}

Value encodeKind(const ServiceL2Status& in) {
  Value o = header(in);
  Value status = Value::object();
  putServiceRef(status, in.status);
  if (!in.status.interfaces.empty()) {
    Value& list = status.set("interfaces", Value::array());
    for (const auto& name : in.status.interfaces) {
      Value e = Value::object();
      putStringAlways(e, "name", name);
      list.push(std::move(e));
    }
  }
  putObject(o, "status", std::move(status));
  return o;
}

void decodeKind(const Field& f, ServiceBGPStatus& out) {
  ObjectReader r(f, Unknown::Reject);
  readHeader(r, out, Unknown::Reject);
  ObjectReader spec(r["spec"], Unknown::Reject);
  ObjectReader status(r["status"], Unknown::Reject);
  readServiceRef(status, out.status);
  (void)status["peers"].read(out.status.peers);
}

Value encodeKind(const ServiceBGPStatus& in) {
  Value o = header(in);
  Value status = Value::object();
  putServiceRef(status, in.status);
  putStrings(status, "peers", in.status.peers);
  putObject(o, "status", std::move(status));
  return o;
}

void decodeKind(const Field& f, ConfigurationState& out) {
  ObjectReader r(f, Unknown::Reject);
  readHeader(r, out, Unknown::Reject);
  ObjectReader status(r["status"], Unknown::Reject);
  decodeConditions(status["conditions"], out.status.conditions);
  (void)status["result"].read(out.status.result);
  (void)status["errorSummary"].read(out.status.error_summary);
}

Value encodeKind(const ConfigurationState& in) {
  Value o = header(in);
  Value status = Value::object();
  if (!in.status.conditions.empty()) {
    status.set("conditions", encodeConditions(in.status.conditions));
  }
  putString(status, "result", in.status.result);
  putString(status, "errorSummary", in.status.error_summary);
  putObject(o, "status", std::move(status));
  return o;
}

}  // namespace ingot::api::codec
