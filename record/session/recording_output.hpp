// recording_output: the files a recording writes. A single perf.data file, or (with --threads)
// perf's data-directory layout: PATH/data holds header, attrs, synthesized records and
// features; PATH/data.N holds what streaming thread N drained.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/published_file.hpp"
#include "io/unique_fd.hpp"

namespace arec::record {

class recording_output {
 public:
  // Keeps an existing PATH as PATH.old and creates the new files (0600, never following a
  // symlink planted at the path). The header file has no name until publish(): a crash
  // before its prologue is written leaves no empty file that no reader opens.
  static recording_output create(const std::string& path, bool directory, std::size_t streams);
  // Names the header file, once its prologue is written; then creates a directory's data.N
  // (stream_fd() is valid from here on).
  void publish();

  bool is_directory() const { return directory_; }
  const std::string& path() const { return path_; }
  int header_fd() const { return header_.fd(); }
  const std::string& header_path() const { return header_path_; }
  // The file streaming thread `index` appends to: the header file itself in single-file mode.
  int stream_fd(std::size_t index) const;
  const std::string& stream_path(std::size_t index) const;
  // Bytes of all files together.
  std::uint64_t total_bytes() const;

 private:
  bool directory_ = false;
  std::size_t streams_wanted_ = 0;
  std::string path_;
  std::string header_path_;
  // Published new-only (io/published_file): named only once its prologue is in.
  io::published_file header_;
  std::vector<std::string> stream_paths_;
  std::vector<io::unique_fd> streams_;
};

}  // namespace arec::record
