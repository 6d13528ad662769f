// rotated_files: the names of the files --switch-output and --timestamp-filename finish, as
// perf names them (PATH.YYYYmmddHHMMSScc, local time), and --switch-max-files' retention.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <string>

namespace arec::record {

// "YYYYmmddHHMMSScc" for `seconds` (local time) and `nanoseconds` into that second.
std::string output_timestamp(long seconds, long nanoseconds);

class rotated_files {
 public:
  // `path` is the output path; `keep` the number of files kept (0: all); `warn` is told what
  // could not be removed.
  rotated_files(std::string path, std::size_t keep, std::function<void(const std::string&)> warn);

  // PATH.<now>, a time no earlier file of this recording has: two names asked for within one
  // centisecond wait for the next one rather than overwrite a file.
  std::string next_name();
  // Counts `finished` among the files kept; as in perf the final file counts too. Removes the
  // oldest beyond the limit.
  void keep(const std::string& finished);
  // The newest file kept ("" before the first).
  std::string newest() const { return kept_.empty() ? std::string() : kept_.back(); }

 private:
  std::string path_;
  std::size_t keep_;
  std::function<void(const std::string&)> warn_;
  std::string last_timestamp_;    // of the newest name given
  std::deque<std::string> kept_;  // oldest first
};

}  // namespace arec::record
