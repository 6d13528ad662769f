#include "pprof_summary.hpp"

#include <cstdlib>
#include <sstream>
#include <vector>

namespace arec::e2e {
namespace {

// Where scripts/install-deps.sh puts the npm decoders (AREC_TEST_NODE_DIR overrides).
std::string node_modules() {
  const char* dir = std::getenv("AREC_TEST_NODE_DIR");
  return std::string(dir && *dir ? dir : "/usr/local/lib/arec-test-node") + "/node_modules";
}

test::command_result run_node_decoder(const std::string& script, const std::string& decoder,
                                      const std::string& path, const std::string& leaf) {
  std::vector<std::string> command{"env", "NODE_PATH=" + node_modules(), "node",
                                   std::string(AREC_TEST_SOURCE_DIR) + "/e2e/" + script, path};
  if (!leaf.empty()) command.push_back(leaf);
  test::command_result decoded = test::run_command(command);
  if (decoded.exit_code != 0)
    decoded.err += "\nnpm's " + decoder + " could not decode " + path + "; if it is missing from " +
                   node_modules() + ", run scripts/install-deps.sh (it needs the npm registry)";
  return decoded;
}

}  // namespace

test::command_result npm_pprof_summary(const std::string& path, const std::string& leaf) {
  return run_node_decoder("pprof_format_summary.cjs", "pprof-format", path, leaf);
}

test::command_result npm_otlp_summary(const std::string& path, const std::string& leaf) {
  return run_node_decoder("otlp_profiles_summary.cjs", "protobufjs", path, leaf);
}

test::command_result protoc_decode(const std::string& path, protoc_message message) {
  const std::string root = std::string(AREC_TEST_SOURCE_DIR) + "/..";
  const bool pprof = message == protoc_message::pprof;
  const std::string type =
      pprof ? "perftools.profiles.Profile export/profile.proto"
            : "opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest "
              "export/otlp/profiles_service.proto";
  return test::run_command(
      {"sh", "-c",
       (pprof ? "gunzip -c '" : "cat '") + path + "' | protoc -I '" + root + "' --decode=" + type});
}

pprof_shares pprof_top_shares(const std::string& text) {
  pprof_shares shares;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream row(line);
    std::vector<std::string> fields;
    for (std::string field; row >> field;) fields.push_back(field);
    if (fields.size() < 6 || !fields[1].ends_with('%') || !fields[4].ends_with('%')) continue;
    std::string name = fields[5];
    for (std::size_t i = 6; i < fields.size(); ++i) name += " " + fields[i];
    shares.flat[name] = std::stod(fields[1]);
    shares.cum[name] = std::stod(fields[4]);
  }
  return shares;
}

long long json_number(const std::string& json, const std::string& key) {
  auto at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return -1;
  at += key.size() + 3;
  if (at < json.size() && json[at] == '"') ++at;  // 64-bit values are strings in JSON
  return std::stoll(json.substr(at));
}

bool json_holds(const std::string& json, const std::string& key, const std::string& value) {
  return json.find("\"" + key + "\":\"" + value + "\"") != std::string::npos;
}

long long otlp_total(const std::string& summary, const std::string& type) {
  auto at = summary.find("\"totals\":");
  if (at == std::string::npos) return -1;
  return json_number(summary.substr(at, summary.find('}', at) - at), type);
}

}  // namespace arec::e2e
