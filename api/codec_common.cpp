// SPDX-License-Identifier: Apache-2.0
#include "api/codec_internal.h"
#include "api/duration.h"

namespace ingot::api::codec {

void readTypeMeta(ObjectReader& r, std::string_view api_version, std::string_view kind) {
  std::string got_version;
  std::string got_kind;
  const Field version_field = r["apiVersion"];
  const Field kind_field = r["kind"];
  if (version_field.read(got_version) && !got_version.empty() && got_version != api_version) {
    version_field.fail("expected \"" + std::string(api_version) + "\", got \"" + got_version +
                       "\"");
  }
  if (kind_field.read(got_kind) && !got_kind.empty() && got_kind != kind) {
    kind_field.fail("expected \"" + std::string(kind) + "\", got \"" + got_kind + "\"");
  }
}

Value startObject(std::string_view api_version, std::string_view kind) {
  Value v = Value::object();
  v.set("apiVersion", Value::string(std::string(api_version)));
  v.set("kind", Value::string(std::string(kind)));
  return v;
}

namespace {

void decodeOwnerReference(const Field& f, OwnerReference& out, Unknown unknown) {
  ObjectReader r(f, unknown);
  (void)r["apiVersion"].read(out.api_version);
  (void)r["kind"].read(out.kind);
  (void)r["name"].read(out.name);
  (void)r["uid"].read(out.uid);
  (void)r["controller"].read(out.controller);
  (void)r["blockOwnerDeletion"].read(out.block_owner_deletion);
}

Value encodeOwnerReference(const OwnerReference& ref) {
  Value o = Value::object();
  putStringAlways(o, "apiVersion", ref.api_version);
  putStringAlways(o, "kind", ref.kind);
  putStringAlways(o, "name", ref.name);
  putStringAlways(o, "uid", ref.uid);
  putOptionalBool(o, "controller", ref.controller);
  putOptionalBool(o, "blockOwnerDeletion", ref.block_owner_deletion);
  return o;
}

void decodeRequirement(const Field& f, LabelSelectorRequirement& out) {
  ObjectReader r(f, Unknown::Reject);
  (void)r["key"].read(out.key);
  (void)r["operator"].read(out.op);
  (void)r["values"].read(out.values);
}

}  // namespace

void decodeMeta(const Field& f, ObjectMeta& out, Unknown unknown) {
  ObjectReader r(f, unknown);
  (void)r["name"].read(out.name);
  (void)r["generateName"].read(out.generate_name);
  (void)r["namespace"].read(out.namespace_);
  (void)r["uid"].read(out.uid);
  (void)r["resourceVersion"].read(out.resource_version);
  (void)r["generation"].read(out.generation);
  (void)r["creationTimestamp"].read(out.creation_timestamp);
  (void)r["deletionTimestamp"].read(out.deletion_timestamp);
  (void)r["labels"].read(out.labels);
  (void)r["annotations"].read(out.annotations);
  arrayOf(r["ownerReferences"], out.owner_references, [&](const Field& item, OwnerReference& ref) {
    decodeOwnerReference(item, ref, unknown);
  });
  (void)r["finalizers"].read(out.finalizers);
  // Real ObjectMeta fields that `kubectl get -o yaml` prints but Ingot does not use.
  r.ignore({"selfLink", "deletionGracePeriodSeconds", "managedFields"});
}

Value encodeMeta(const ObjectMeta& m) {
  Value o = Value::object();
  putString(o, "name", m.name);
  putString(o, "generateName", m.generate_name);
  putString(o, "namespace", m.namespace_);
  putString(o, "uid", m.uid);
  putString(o, "resourceVersion", m.resource_version);
  putInt(o, "generation", m.generation);
  putString(o, "creationTimestamp", m.creation_timestamp);
  if (m.deletion_timestamp) {
    o.set("deletionTimestamp", Value::string(*m.deletion_timestamp));
  }
  putMap(o, "labels", m.labels);
  putMap(o, "annotations", m.annotations);
  if (!m.owner_references.empty()) {
    Value& list = o.set("ownerReferences", Value::array());
    for (const auto& ref : m.owner_references) {
      list.push(encodeOwnerReference(ref));
    }
  }
  putStrings(o, "finalizers", m.finalizers);
  return o;
}

void decodeSelector(const Field& f, LabelSelector& out) {
  ObjectReader r(f, Unknown::Reject);
  (void)r["matchLabels"].read(out.match_labels);
  arrayOf(r["matchExpressions"], out.match_expressions, decodeRequirement);
}

Value encodeSelector(const LabelSelector& s) {
  Value o = Value::object();
  putMap(o, "matchLabels", s.match_labels);
  if (!s.match_expressions.empty()) {
    Value& list = o.set("matchExpressions", Value::array());
    for (const auto& req : s.match_expressions) {
      Value e = Value::object();
      putStringAlways(e, "key", req.key);
      putStringAlways(e, "operator", req.op);
      putStrings(e, "values", req.values);
      list.push(std::move(e));
    }
  }
  return o;
}

void decodeSelectors(const Field& f, std::vector<LabelSelector>& out) {
  arrayOf(f, out, decodeSelector);
}

Value encodeSelectors(const std::vector<LabelSelector>& list) {
  Value a = Value::array();
  for (const auto& s : list) {
    a.push(encodeSelector(s));
  }
  return a;
}

void decodeDuration(const Field& f, std::optional<Duration>& out) {
  std::string text;
  if (!f.present() || !f.read(text)) {
    return;
  }
  auto d = parseDuration(text);
  if (!d) {
    f.fail(d.error().message);
    return;
  }
  out = std::move(*d);
}

void decodeConditions(const Field& f, std::vector<Condition>& out) {
  arrayOf(f, out, [](const Field& item, Condition& c) {
    ObjectReader r(item, Unknown::Reject);
    (void)r["type"].read(c.type);
    (void)r["status"].read(c.status);
    (void)r["observedGeneration"].read(c.observed_generation);
    (void)r["lastTransitionTime"].read(c.last_transition_time);
    (void)r["reason"].read(c.reason);
    (void)r["message"].read(c.message);
  });
}

Value encodeConditions(const std::vector<Condition>& list) {
  Value a = Value::array();
  for (const auto& c : list) {
    Value o = Value::object();
    putStringAlways(o, "type", c.type);
    putStringAlways(o, "status", c.status);
    putInt(o, "observedGeneration", c.observed_generation);
    putStringAlways(o, "lastTransitionTime", c.last_transition_time);
    putStringAlways(o, "reason", c.reason);
    putStringAlways(o, "message", c.message);
    a.push(std::move(o));
  }
  return a;
}

void decodeSecretRef(const Field& f, std::optional<SecretReference>& out) {
  if (!f.present()) {
    return;
  }
  SecretReference ref;
  ObjectReader r(f, Unknown::Reject);
  (void)r["name"].read(ref.name);
  (void)r["namespace"].read(ref.namespace_);
  if (r.isObject()) {
    out = std::move(ref);
  }
}

Value encodeSecretRef(const SecretReference& ref) {
  Value o = Value::object();
  putString(o, "name", ref.name);
  putString(o, "namespace", ref.namespace_);
  return o;
}

void putString(Value& o, std::string key, const std::string& s) {
  if (!s.empty()) {
    o.set(std::move(key), Value::string(s));
  }
}

void putStringAlways(Value& o, std::string key, const std::string& s) {
  o.set(std::move(key), Value::string(s));
}

void putBool(Value& o, std::string key, bool b) {
  if (b) {
    o.set(std::move(key), Value::boolean(true));
  }
}

void putInt(Value& o, std::string key, int64_t n) {
  if (n != 0) {
    putIntAlways(o, std::move(key), n);
  }
}

void putIntAlways(Value& o, std::string key, int64_t n) {
  o.set(std::move(key), Value::number(n));
}

void putStrings(Value& o, std::string key, const std::vector<std::string>& list) {
  if (list.empty()) {
    return;
  }
  Value& a = o.set(std::move(key), Value::array());
  for (const auto& s : list) {
    a.push(Value::string(s));
  }
}

void putMap(Value& o, std::string key, const StringMap& map) {
  if (map.empty()) {
    return;
  }
  Value& m = o.set(std::move(key), Value::object());
  for (const auto& [k, v] : map) {
    m.set(k, Value::string(v));
  }
}

void putDuration(Value& o, std::string key, const std::optional<Duration>& d) {
  if (d) {
    o.set(std::move(key), Value::string(durationText(*d)));
  }
}

void putObject(Value& o, std::string key, Value v) {
  if (v.size() > 0) {
    o.set(std::move(key), std::move(v));
  }
}

}  // namespace ingot::api::codec
