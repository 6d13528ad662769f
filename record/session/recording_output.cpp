#include "record/session/recording_output.hpp"

#include <sys/stat.h>

#include "base/system_error.hpp"
#include "io/output_path.hpp"

namespace arec::record {

recording_output recording_output::create(const std::string& path, bool directory,
                                          std::size_t streams) {
  io::keep_previous_output(path);
  recording_output output;
  output.directory_ = directory;
  output.path_ = path;
  output.streams_wanted_ = streams;
  if (!directory) {
    output.header_path_ = path;
    output.header_ = io::published_file(path, io::publish_policy::new_only);
    return output;
  }
  io::create_output_directory(path);
  output.header_path_ = path + "/data";
  output.header_ = io::published_file(output.header_path_, io::publish_policy::new_only);
  return output;
}

// A directory's data.N come after its header file: a directory is empty or has `data`.
void recording_output::publish() {
  header_.commit();
  if (!directory_) return;
  for (std::size_t i = 0; i < streams_wanted_; ++i) {
    stream_paths_.push_back(path_ + "/data." + std::to_string(i));
    streams_.push_back(io::create_output_file(stream_paths_.back()));
  }
}

int recording_output::stream_fd(std::size_t index) const {
  return directory_ ? streams_.at(index).get() : header_.fd();
}

const std::string& recording_output::stream_path(std::size_t index) const {
  return directory_ ? stream_paths_.at(index) : header_path_;
}

std::uint64_t recording_output::total_bytes() const {
  std::uint64_t total = 0;
  auto add = [&](int fd, const std::string& name) {
    struct stat st {};
    base::check_syscall(::fstat(fd, &st), "stat", name);
    total += static_cast<std::uint64_t>(st.st_size);
  };
  add(header_.fd(), header_path_);
  for (std::size_t i = 0; i < streams_.size(); ++i) add(streams_[i].get(), stream_paths_[i]);
  return total;
}

}  // namespace arec::record
