#include "pprof_summary.hpp"

#include <cstdlib>
#include <vector>

namespace arec::e2e {
namespace {

// Where scripts/install-deps.sh puts npm's pprof-format (AREC_TEST_NODE_DIR overrides).
std::string node_modules() {
  const char* dir = std::getenv("AREC_TEST_NODE_DIR");
  return std::string(dir && *dir ? dir : "/usr/local/lib/arec-test-node") + "/node_modules";
}

}  // namespace

test::command_result npm_pprof_summary(const std::string& path, const std::string& leaf) {
  std::vector<std::string> command{"env", "NODE_PATH=" + node_modules(), "node",
                                   std::string(AREC_TEST_SOURCE_DIR) +
                                       "/e2e/pprof_format_summary.cjs",
                                   path};
  if (!leaf.empty()) command.push_back(leaf);
  test::command_result decoded = test::run_command(command);
  if (decoded.exit_code != 0)
    decoded.err += "\nnpm's pprof-format could not decode " + path + "; if it is missing from " +
                   node_modules() + ", run scripts/install-deps.sh (it needs the npm registry)";
  return decoded;
}

long long json_number(const std::string& json, const std::string& key) {
  auto at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return -1;
  at += key.size() + 3;
  if (at < json.size() && json[at] == '"') ++at;  // 64-bit values are strings in JSON
  return std::stoll(json.substr(at));
}

}  // namespace arec::e2e
