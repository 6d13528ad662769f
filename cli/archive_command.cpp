#include "cli/archive_command.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <variant>

#include "cli/archive_command_line.hpp"
#include "perf_data/build_id_feature.hpp"
#include "perf_data/perf_header.hpp"
#include "symbols/build_id_archive.hpp"
#include "symbols/build_id_cache_layout.hpp"

namespace arec::cli {
namespace {

std::vector<perf_data::build_id_entry> recorded_build_ids(const std::string& input) {
  std::string header_path = perf_data::recording_header_path(input);
  perf_data::perf_header header =
      perf_data::read_perf_header(header_path, perf_data::header_mode::strict);
  const std::vector<std::byte>* payload = header.features.find(perf_data::feature_build_id);
  std::vector<perf_data::build_id_entry> entries;
  if (payload) entries = perf_data::parse_build_id_payload(*payload, 0, header_path + " BUILD_ID");
  std::erase_if(entries, [](const perf_data::build_id_entry& entry) { return entry.id.empty(); });
  if (entries.empty())
    throw std::runtime_error(
        input +
        " holds no build-ids (recorded with -B, or in pipe mode): there is nothing "
        "to archive");
  return entries;
}

double megabytes(std::uint64_t bytes) {
  return static_cast<double>(bytes) / 1e6;
}

}  // namespace

int run_archive_command(std::span<const char* const> args) {
  auto parsed = parse_archive_command_line(args);
  if (auto* help = std::get_if<help_request>(&parsed)) {
    std::fputs(help->text.c_str(), stdout);
    return 0;
  }
  const symbols::archive_options& options = std::get<symbols::archive_options>(parsed);
  std::vector<perf_data::build_id_entry> entries = recorded_build_ids(options.input);
  std::string cache = symbols::default_build_id_dir();
  symbols::archive_contents contents =
      symbols::write_build_id_archive(entries, cache, options.output);
  if (contents.objects == 0)
    throw std::runtime_error("the build-id cache " + cache + " holds none of the " +
                             std::to_string(entries.size()) + " objects of " + options.input +
                             " (recorded with -N, or by a user with another cache?)");
  if (options.quiet) return 0;
  for (const std::string& missing : contents.missing)
    std::fprintf(stderr,
                 "arec: warning: not in the build-id cache %s: %s; perf report elsewhere will "
                 "show its addresses only\n",
                 cache.c_str(), missing.c_str());
  std::fprintf(stderr, "arec: archived %zu objects (%.1f MB) of %s from %s\n", contents.objects,
               megabytes(contents.bytes), options.input.c_str(), cache.c_str());
  // perf archive's own instructions, word for word: people and scripts know them.
  std::printf(
      "Now please run:\n\n$ tar xvf %s -C ~/.debug\n\nwherever you need to run 'perf "
      "report' on.\n",
      options.output.c_str());
  return 0;
}

}  // namespace arec::cli
