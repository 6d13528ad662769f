#include "convert/convert_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "base/system_error.hpp"
#include "convert/event_names.hpp"
#include "convert/record_check.hpp"
#include "io/dir_reader.hpp"
#include "io/file_status.hpp"
#include "io/unique_fd.hpp"
#include "perf_data/perf_header.hpp"
#include "perf_data/pipe_spool.hpp"

namespace arec::convert {
namespace {

using perf_data::format_error;

// What `mode` is, in the user's words, for a refusal.
const char* file_kind(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Where to read `input.path` from: itself, or a spooled copy of standard input or a FIFO.
std::string readable_path(convert_input& input, const std::string& spool_dir) {
  if (input.path == "-") {
    if (::isatty(STDIN_FILENO))
      throw format_error("-", 0, "standard input is a terminal, not a pipe stream (arec -o -)");
    input.spool = perf_data::spool_pipe_stream(STDIN_FILENO, "standard input", spool_dir);
  } else {
    struct stat status = io::status_of(input.path);
    if (S_ISFIFO(status.st_mode)) {
      io::unique_fd fifo = io::unique_fd::open(input.path.c_str(), O_RDONLY | O_CLOEXEC);
      input.spool = perf_data::spool_pipe_stream(fifo.get(), input.path, spool_dir);
    } else if (!S_ISREG(status.st_mode) && !S_ISDIR(status.st_mode)) {
      throw format_error(input.path, 0,
                         std::string(file_kind(status.st_mode)) +
                             ", not a perf.data file: arec convert reads files, data "
                             "directories and pipe streams (a FIFO or -i -)");
    }
  }
  if (!input.spool) return input.path;
  return "/proc/self/fd/" + std::to_string(input.spool.get());
}

std::uint64_t file_size(const std::string& path) {
  return static_cast<std::uint64_t>(io::status_of(path).st_size);
}

bool is_empty_directory(const std::string& directory) {
  io::dir_reader reader(io::unique_fd::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  return !reader.next();
}

// The numbers N of the regular files "data.N" in `directory`, sorted.
std::vector<unsigned> data_file_numbers(const std::string& directory) {
  io::dir_reader reader(io::unique_fd::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  std::vector<unsigned> numbers;
  while (auto entry = reader.next()) {
    std::string_view name = entry->name;
    if (!name.starts_with("data.")) continue;
    std::string_view digits = name.substr(5);
    unsigned number = 0;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size()) continue;
    numbers.push_back(number);
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

void add_directory_ranges(convert_input& input, bool salvage) {
  std::vector<unsigned> numbers = data_file_numbers(input.path);
  auto missing = [&](unsigned number, const std::string& problem) {
    format_error error(input.path + "/data." + std::to_string(number), 0, "missing: " + problem);
    if (!salvage) throw error;
    input.salvage_notes.push_back(error.what());
  };
  if (numbers.empty()) missing(0, "the directory holds no data.N file, so it has no samples");
  unsigned expected = 0;
  for (unsigned number : numbers) {
    for (; expected < number; ++expected)
      missing(expected, "data." + std::to_string(number) + " exists, so streaming thread " +
                            std::to_string(expected) + "'s file was lost");
    ++expected;
  }
  for (unsigned number : numbers) {
    std::string path = input.path + "/data." + std::to_string(number);
    input.ranges.push_back(perf_data::data_range{path, 0, file_size(path)});
  }
}

}  // namespace

std::uint64_t convert_input::total_bytes() const {
  std::uint64_t total = 0;
  for (const perf_data::data_range& range : ranges) total += range.end - range.begin;
  return total;
}

std::string convert_input::as_given(const std::string& text) const {
  if (!spool || !text.starts_with(header_path + ": ")) return text;
  return path + text.substr(header_path.size());
}

void convert_input::rethrow_as_given(const format_error& error) const {
  std::string what = error.what();
  std::string prefix = header_path + ": offset " + std::to_string(error.offset()) + ": ";
  if (!spool || !what.starts_with(prefix)) throw error;
  throw format_error(path, error.offset(), what.substr(prefix.size()));
}

convert_input open_convert_input(const std::string& path, bool salvage,
                                 const std::string& spool_dir) {
  convert_input input;
  input.path = path;
  std::string readable = readable_path(input, spool_dir);
  input.header_path = input.spool ? readable : perf_data::recording_header_path(path);
  input.directory = !input.spool && input.header_path != path;
  // A recording creates a directory's `data` right after the directory, then its data.N.
  if (input.directory && ::access(input.header_path.c_str(), F_OK) != 0 && errno == ENOENT &&
      is_empty_directory(path))
    throw format_error(path, 0,
                       "an empty data directory: the recording was stopped as it created it, "
                       "before anything was recorded there");
  perf_data::perf_header read;
  try {
    read = perf_data::read_perf_header(input.header_path, salvage ? perf_data::header_mode::salvage
                                                                  : perf_data::header_mode::strict);
  } catch (const format_error& error) {
    input.rethrow_as_given(error);
  }
  input.header = read.header;
  input.events = std::move(read.events);
  input.features = std::move(read.features);
  for (const std::string& note : read.salvage_notes)
    input.salvage_notes.push_back(input.as_given(note));
  if (salvage && !input.features.has(perf_data::feature_event_desc)) {
    input.salvaged_names = name_salvaged_events(input.events);
    input.salvage_notes.push_back(
        input.path + ": no EVENT_DESC; named " + std::to_string(input.salvaged_names) + " of its " +
        std::to_string(input.events.size()) +
        " events from their attrs (as perf 6.1 does; offcpu-time for arec's off-CPU event)");
  }
  const perf_data::file_header& header = input.header;
  if (std::string problem = attrs_problem(input.events); !problem.empty())
    throw format_error(input.spool ? path : input.header_path, header.attrs.offset, problem);
  input.ranges.push_back(perf_data::data_range{input.header_path, header.data.offset,
                                               header.data.offset + header.data.size});
  if (input.directory) add_directory_ranges(input, salvage);
  return input;
}

}  // namespace arec::convert
