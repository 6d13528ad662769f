#include "convert/convert_input.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "io/dir_reader.hpp"
#include "io/perf_data/perf_header.hpp"
#include "io/system_error.hpp"
#include "io/unique_fd.hpp"

namespace arec::convert {
namespace {

using io::perf::format_error;

std::uint64_t file_size(const std::string& path) {
  struct stat status {};
  io::check_syscall(::stat(path.c_str(), &status), "stat", path);
  return static_cast<std::uint64_t>(status.st_size);
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
  if (numbers.empty())
    missing(0, "the directory holds no data.N file, so it has no samples");
  unsigned expected = 0;
  for (unsigned number : numbers) {
    for (; expected < number; ++expected)
      missing(expected, "data." + std::to_string(number) + " exists, so streaming thread " +
                            std::to_string(expected) + "'s file was lost");
    ++expected;
  }
  for (unsigned number : numbers) {
    std::string path = input.path + "/data." + std::to_string(number);
    input.ranges.push_back(io::perf::data_range{path, 0, file_size(path)});
  }
}

}  // namespace

std::uint64_t convert_input::total_bytes() const {
  std::uint64_t total = 0;
  for (const io::perf::data_range& range : ranges) total += range.end - range.begin;
  return total;
}

convert_input open_convert_input(const std::string& path, bool salvage) {
  convert_input input;
  input.path = path;
  input.header_path = io::perf::recording_header_path(path);
  input.directory = input.header_path != path;
  // A recording creates a directory's `data` right after the directory, then its data.N.
  if (input.directory && ::access(input.header_path.c_str(), F_OK) != 0 && errno == ENOENT &&
      is_empty_directory(path))
    throw format_error(path, 0,
                       "an empty data directory: the recording was stopped as it created it, "
                       "before anything was recorded there");
  io::perf::perf_header read = io::perf::read_perf_header(
      input.header_path, salvage ? io::perf::header_mode::salvage : io::perf::header_mode::strict);
  input.header = read.header;
  input.events = std::move(read.events);
  input.features = std::move(read.features);
  input.salvage_notes = std::move(read.salvage_notes);
  const io::perf::file_header& header = input.header;
  input.ranges.push_back(io::perf::data_range{input.header_path, header.data.offset,
                                              header.data.offset + header.data.size});
  if (input.directory) add_directory_ranges(input, salvage);
  return input;
}

}  // namespace arec::convert
