// SPDX-License-Identifier: Apache-2.0
// Tests of ingotctl's shell completion: the completer as a table, the manifest index read from
// the -f files, and `ingotctl __complete` end to end on examples/.
#include "cli/completion.h"

#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "cli/command_table.h"
#include "cli/commands.h"
#include "cli/tests/test_util.h"

namespace {

using namespace ingot::cli;
using namespace ingot::cli::testing;
using Words = std::vector<std::string>;

const CompletionIndex kIndex{{"apps/web", "default/db", "web/frontend"}, {"node-a", "node-b"}};

Completion words(Words w, bool files = false, bool nospace = false) {
  Completion c;
  c.words = std::move(w);
  c.files = files;
  c.nospace = nospace;
  return c;
}

Words allCommands() {
  Words out;
  for (const auto& c : commandTable()) {
    out.push_back(c.name);
  }
  return out;
}

std::string text(const Words& w) {
  std::string out;
  for (const auto& s : w) {
    out += "[" + s + "]";
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(completion)

BOOST_AUTO_TEST_CASE(completes_commands_flags_values_and_names) {
  Words top = allCommands();
  top.insert(top.end(), {"--help", "--version"});
  struct Case {
    std::string desc;
    Words words;
    Completion want;
  };
  const std::vector<Case> cases = {
      {"nothing typed: every command", {""}, words(top)},
      {"a command prefix", {"ex"}, words({"explain"})},
      {"an unknown command: nothing", {"frob", ""}, words({})},
      {"flags of plan by prefix", {"plan", "--o"}, words({"--output"})},
      {"-f and --filename are offered",
       {"validate", "-"},
       words({"-f", "--filename", "--backend", "--output", "--namespace", "--help"})},
      {"a flag given is not offered again",
       {"validate", "--output", "json", "--"},
       words({"--filename", "--backend", "--namespace", "--help"})},
      {"a repeatable flag is offered again",
       {"explain", "a/b", "--dead-node", "node-a", "--d"},
       words({"--dead-node", "--drain-triggers", "--drain-taint"})},
      {"choices of --output", {"plan", "--output", ""}, words({"table", "json"})},
      {"choices by prefix", {"render", "--format", "frr."}, words({"frr.conf"})},
      {"--flag=value gets values only", {"plan", "--output=j"}, words({"json"})},
      {"--flag= gets every value", {"validate", "--backend="}, words({"frr-k8s", "frr"})},
      {"-f wants files", {"plan", "-f", ""}, words({}, true)},
      {"--filename= wants files", {"plan", "--filename=exa"}, words({}, true)},
      {"--kubeconfig wants files", {"explain", "a/b", "--kubeconfig", ""}, words({}, true)},
      {"support-bundle -o wants files", {"support-bundle", "-o", ""}, words({}, true)},
      {"--node offers the Nodes", {"render", "--node", ""}, words({"node-a", "node-b"})},
      {"--node by prefix", {"frr-k8s", "-f", "x", "--node", "node-b"}, words({"node-b"})},
      {"--dead-node offers the Nodes",
       {"explain", "a/b", "--dead-node", "n"},
       words({"node-a", "node-b"})},
      {"--interfaces offers NODE=",
       {"plan", "--interfaces", ""},
       words({"node-a=", "node-b="}, false, true)},
      {"--interfaces after NODE=: the interfaces are the user's",
       {"plan", "--interfaces", "node-a=e"},
       words({})},
      {"explain's first word: the kind word and the Services",
       {"explain", ""},
       words({"service", "apps/web", "default/db", "web/frontend"})},
      {"explain's Service by prefix", {"explain", "-f", "x", "web"}, words({"web/frontend"})},
      {"after the kind word: Services only", {"explain", "service", "a"}, words({"apps/web"})},
      {"after the Service: flags", {"explain", "web/frontend", "--ou"}, words({"--output"})},
      {"support-bundle: an empty word offers the flags not given",
       {"support-bundle", "-o", "x.tar.gz", "--kubeconfig", "k", ""},
       words({"--context", "--namespace", "--frrk8s-namespace", "--frr-pathspace", "--metrics-port",
              "--vtysh", "--help"})},
      {"a free-text value: nothing", {"plan", "--namespace", ""}, words({})},
      {"help offers commands", {"help", "p"}, words({"plan"})},
      {"--help offers commands as help does", {"--help", "v"}, words({"validate", "version"})},
      {"completion offers the shells", {"completion", ""}, words({"bash", "zsh"})},
      {"completion takes one shell", {"completion", "bash", ""}, words({"--help"})},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const Completion got = completeWords(c.words, kIndex);
      BOOST_TEST(text(got.words) == text(c.want.words));
      BOOST_TEST(got.files == c.want.files);
      BOOST_TEST(got.nospace == c.want.nospace);
    }
  }
}

BOOST_AUTO_TEST_CASE(completion_files_are_the_f_values_before_the_cursor) {
  BOOST_TEST(text(completionFiles({"plan", "-f", "a.yaml", "--filename", "b", "--filename=c", "-f",
                                   "-", "--output", "json", "-f"})) == "[a.yaml][b][c]");
  // The path being typed is not read.
  BOOST_TEST(text(completionFiles({"plan", "-f", "exa"})) == "");
  BOOST_TEST(text(completionFiles({"plan", "--filename=exa"})) == "");
}

BOOST_AUTO_TEST_CASE(index_reads_services_and_nodes_of_the_manifests) {
  const auto index = indexManifests({sourceDir() + "/examples"});
  BOOST_TEST(text(index.nodes) == "[node1][node2]");
  BOOST_TEST(index.services.size() == 10U);
  BOOST_TEST(text({index.services.back()}) == "[web/gateway]");
  // Unreadable input is left out, quietly.
  BOOST_TEST(indexManifests({"/nonexistent/x.yaml"}).services.empty());
}

// `ingotctl __complete` prints the candidates and a directive line, from the -f files.
BOOST_AUTO_TEST_CASE(complete_command_reads_the_f_files) {
  const std::string examples = sourceDir() + "/examples";
  auto complete = [](Words w) {
    w.insert(w.begin(), {"ingotctl", std::string(kCompleteCommand)});
    std::ostringstream out;
    std::ostringstream err;
    BOOST_TEST(runMain(w, out, err) == kExitOk);
    return out.str();
  };
  BOOST_TEST(complete({"render", "-f", examples, "--node", ""}) == "node1\nnode2\n:\n");
  BOOST_TEST(complete({"explain", "--filename=" + examples, "web/f"}) == "web/frontend\n:\n");
  BOOST_TEST(complete({"plan", "-f", ""}) == ":files\n");
  BOOST_TEST(complete({"plan", "-f", examples, "--interfaces", "node2"}) == "node2=\n:nospace\n");
}

BOOST_AUTO_TEST_CASE(completion_prints_the_scripts) {
  auto script = [](const std::string& shell) { return run(runCompletion, {shell}); };
  const Run bash = script("bash");
  BOOST_TEST(bash.code == kExitOk);
  BOOST_TEST(bash.out.find("complete -F _ingotctl ingotctl") != std::string::npos);
  BOOST_TEST(bash.out.find("__complete") != std::string::npos);
  const Run zsh = script("zsh");
  BOOST_TEST(zsh.code == kExitOk);
  BOOST_TEST(zsh.out.find("bashcompinit") != std::string::npos);
  BOOST_TEST(script("fish").code == kExitUsage);
  BOOST_TEST(run(runCompletion, {}).code == kExitUsage);
}

BOOST_AUTO_TEST_SUITE_END()
