// SPDX-License-Identifier: Apache-2.0
#include "controller/metrics.h"

#include <boost/test/unit_test.hpp>

using namespace ingot::controller;

BOOST_AUTO_TEST_SUITE(metrics)

BOOST_AUTO_TEST_CASE(metallb_names_and_request_counters_are_exposed) {
  Metrics m;
  m.countRequest(ApiVerb::PatchStatus, false);
  m.countRequest(ApiVerb::PatchStatus, true);
  m.countRequest(ApiVerb::Watch, false);
  m.countRequestError(ApiVerb::Watch);
  m.countUpdate();
  m.countUpdateError();
  m.setConfigLoaded(true);
  m.setConfigStale(true);
  m.setAllocator({{"metallb_allocator_addresses_total", "Total.", {{"pool", "p"}}, 8}});
  const std::string text = m.render();
  const std::vector<std::string> lines = {
      "metallb_allocator_addresses_total{pool=\"p\"} 8\n",
      "metallb_k8s_client_updates_total 1\n",
      "metallb_k8s_client_update_errors_total 1\n",
      "metallb_k8s_client_config_loaded_bool 1\n",
      "metallb_k8s_client_config_stale_bool 1\n",
      "ingot_controller_api_requests_total{verb=\"patch_status\"} 2\n",
      "ingot_controller_api_request_errors_total{verb=\"patch_status\"} 1\n",
      "ingot_controller_api_requests_total{verb=\"watch\"} 1\n",
      "ingot_controller_api_request_errors_total{verb=\"watch\"} 1\n",
  };
  for (const auto& l : lines) {
    BOOST_TEST_CONTEXT(l) {
      BOOST_TEST(text.find(l) != std::string::npos);
    }
  }
  BOOST_TEST(m.totalRequests() == 3u);
  BOOST_TEST(m.requests(ApiVerb::PatchStatus) == 2u);
}

BOOST_AUTO_TEST_CASE(client_retries_are_counted_by_reason) {
  Metrics m;
  m.countRetry(ingot::k8s::RetryReason::Throttled);
  m.countRetry(ingot::k8s::RetryReason::Throttled);
  m.countRetry(ingot::k8s::RetryReason::ServerError);
  const std::string text = m.render();
  BOOST_TEST(text.find("ingot_controller_api_retries_total{reason=\"throttled\"} 2\n") !=
             std::string::npos);
  BOOST_TEST(text.find("ingot_controller_api_retries_total{reason=\"server_error\"} 1\n") !=
             std::string::npos);
  BOOST_TEST(m.retries(ingot::k8s::RetryReason::Throttled) == 2u);
  BOOST_TEST(m.totalRequests() == 0u);  // a retry is not another request
}

BOOST_AUTO_TEST_CASE(reconciles_are_counted_by_kind_and_the_queue_depth_is_a_gauge) {
  Metrics m;
  m.countReconcile(ReconcileKind::FullPass, false);
  m.countReconcile(ReconcileKind::FullPass, true);
  m.countReconcile(ReconcileKind::ConfigurationState, false);
  m.setQueueDepth(7);
  const std::string text = m.render();
  const std::vector<std::string> lines = {
      "ingot_controller_reconciles_total{kind=\"config\"} 0\n",
      "ingot_controller_reconciles_total{kind=\"full_pass\"} 2\n",
      "ingot_controller_reconcile_errors_total{kind=\"full_pass\"} 1\n",
      "ingot_controller_reconciles_total{kind=\"configuration_state\"} 1\n",
      "ingot_controller_reconcile_errors_total{kind=\"configuration_state\"} 0\n",
      "# TYPE ingot_controller_workqueue_depth gauge\ningot_controller_workqueue_depth 7\n",
  };
  for (const auto& l : lines) {
    BOOST_TEST_CONTEXT(l) {
      BOOST_TEST(text.find(l) != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(allocator_metrics_are_grouped_by_name) {
  const auto families = groupMetrics({{"a", "A.", {{"pool", "p1"}}, 1},
                                      {"a", "A.", {{"pool", "p2"}}, 2},
                                      {"b", "B.", {{"pool", "p1"}}, 3}});
  BOOST_REQUIRE(families.size() == 2u);
  BOOST_TEST(families[0].samples.size() == 2u);
  BOOST_TEST(families[1].name == "b");
}

BOOST_AUTO_TEST_SUITE_END()
