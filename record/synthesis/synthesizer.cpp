#include "record/synthesis/synthesizer.hpp"

#include <fcntl.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "base/annotated_mutex.hpp"
#include "base/system_error.hpp"
#include "host/proc_maps.hpp"
#include "host/proc_status.hpp"
#include "io/dir_reader.hpp"
#include "io/small_file.hpp"
#include "io/unique_fd.hpp"
#include "perf_data/perf_abi.hpp"
#include "record/streaming/model_feed.hpp"
#include "record/synthesis/worker_pool.hpp"

namespace arec::record {

namespace {

bool all_digits(std::string_view name) {
  return !name.empty() &&
         std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

int to_pid(std::string_view digits) {
  int pid = -1;
  std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  return pid;
}

// A NUL-terminated relative path "<number><suffix>" in a fixed buffer.
class relative_path {
 public:
  relative_path(std::string_view number, std::string_view suffix) { assign(number, suffix); }
  relative_path(int number, std::string_view suffix) {
    char digits[16];
    auto end = std::to_chars(digits, digits + sizeof digits, number).ptr;
    assign({digits, static_cast<std::size_t>(end - digits)}, suffix);
  }
  const char* c_str() const noexcept { return text_; }

 private:
  void assign(std::string_view number, std::string_view suffix) {
    std::size_t size = std::min(number.size(), sizeof text_ - 1);
    std::memcpy(text_, number.data(), size);
    std::size_t more = std::min(suffix.size(), sizeof text_ - 1 - size);
    std::memcpy(text_ + size, suffix.data(), more);
    text_[size + more] = '\0';
  }
  char text_[48];
};

// The state and fixed buffers of one synthesis pass; lives on the caller's stack so the scan
// itself allocates nothing.
class task_scanner {
 public:
  task_scanner(io::record_sink& sink, const synthesis_config& config) : config_(config) {
    perf_data::check_sample_id_size(config.sample_id_size);
    if (config.model) feed_.emplace(*config.model, sink);
    sink_ = feed_ ? static_cast<io::record_sink*>(&*feed_) : &sink;
  }

  // Every task in /proc/<pid>/task of one process. `with_fork` selects system-wide records.
  void process(int proc_fd, std::string_view pid_name, bool with_fork) {
    io::unique_fd task_fd =
        io::open_directory_if_present(proc_fd, relative_path(pid_name, "/task").c_str());
    if (!task_fd) return;
    io::dir_reader tasks{std::move(task_fd)};
    while (auto entry = tasks.next()) {
      if (!all_digits(entry->name)) continue;
      task(tasks.fd(), entry->name, with_fork);
    }
  }

  // The thread-group id of the task /proc/<pid>, or -1 when it is gone.
  int tgid_of(int proc_fd, int pid) {
    auto text = io::read_small_file(proc_fd, relative_path(pid, "/status").c_str(), status_text_);
    return text ? host::parse_task_status(*text).tgid : -1;
  }

  synthesis_counts counts;

 private:
  void task(int task_dir_fd, std::string_view tid_name, bool with_fork) {
    relative_path status_path{tid_name, "/status"};
    auto text = io::read_small_file(task_dir_fd, status_path.c_str(), status_text_);
    if (!text) return;  // exited since the directory was listed
    host::task_status status = host::parse_task_status(*text);
    if (status.tgid < 0) return;
    auto tgid = static_cast<std::uint32_t>(status.tgid);
    auto tid = static_cast<std::uint32_t>(to_pid(tid_name));
    bool leader = tid == tgid;
    if (with_fork) {
      // The leader's parent is its PPid; other threads are taken to be forked by the leader.
      auto parent = leader ? static_cast<std::uint32_t>(status.ppid) : tgid;
      sink_->write(
          perf_data::encode_fork(record_, tgid, parent, tid, parent, config_.sample_id_size));
    }
    sink_->write(perf_data::encode_comm(record_, tgid, tid, status.name(), config_.sample_id_size));
    ++counts.threads;
    if (!leader) return;
    ++counts.processes;
    if (!status.kernel_thread() && config_.task_mmaps) mappings(task_dir_fd, tid_name, tgid);
  }

  void mappings(int task_dir_fd, std::string_view pid_name, std::uint32_t pid) {
    io::small_file file =
        io::small_file::open_at(task_dir_fd, relative_path(pid_name, "/maps").c_str());
    if (!file) return;  // gone, or maps we may not read
    auto deadline = std::chrono::steady_clock::now() + config_.proc_map_timeout;
    host::maps_reader maps{file, maps_text_};
    while (auto entry = maps.next()) {
      perf_data::mapping_record fields;
      fields.misc = PERF_RECORD_MISC_USER;
      bool timed_out = std::chrono::steady_clock::now() > deadline;
      if (timed_out) {
        // Like perf: the mapping at hand is written regardless of the filter, then we stop.
        fields.misc |= perf_data::misc_proc_map_parse_timeout;
      } else if ((entry->prot & PROT_EXEC) == 0) {
        if (!config_.data_mmaps || (entry->prot & PROT_READ) == 0) continue;
        fields.misc |= perf_data::misc_mmap_data;
      }
      fields.pid = static_cast<std::int32_t>(pid);
      fields.tid = static_cast<std::int32_t>(pid);
      fields.start = entry->start;
      fields.len = entry->end - entry->start;
      fields.pgoff = entry->pgoff;
      fields.major = entry->major;
      fields.minor = entry->minor;
      fields.inode = entry->inode;
      fields.prot = entry->prot;
      fields.flags = entry->shared ? MAP_SHARED : MAP_PRIVATE;
      fields.name = perf_data::too_long_name;
      if (entry->path.empty()) {
        fields.name = perf_data::anonymous_name;
      } else if (!entry->path_truncated) {
        if (auto size = host::decode_maps_path(entry->path, path_)) fields.name = {path_, *size};
      }
      sink_->write(perf_data::encode_mmap2(record_, fields, config_.sample_id_size));
      ++counts.mmaps;
      if (timed_out) break;
    }
  }

  const synthesis_config& config_;
  std::optional<model_feed_sink> feed_;
  io::record_sink* sink_;
  perf_data::record_buffer record_;
  char status_text_[4096];
  char path_[PATH_MAX];
  char maps_text_[PATH_MAX + 8192];  // holds a maximal line and then some
};

io::unique_fd open_proc(const char* root) {
  return io::unique_fd::open(root, O_RDONLY | O_DIRECTORY);
}

// The processes of /proc handed out one at a time to the synthesis workers: one shared
// directory listing, so no list of pids is built.
class process_queue {
 public:
  explicit process_queue(const char* root) : reader_(open_proc(root)) { fd_ = reader_.fd(); }

  // Copies the next process's directory name into `name`; false at the end.
  bool next(std::array<char, 16>& name, std::size_t& size) AREC_EXCLUDES(mutex_) {
    base::exclusive_lock lock{mutex_};
    while (auto entry = reader_.next()) {
      if (!all_digits(entry->name) || entry->name.size() >= name.size()) continue;
      size = entry->name.size();
      std::memcpy(name.data(), entry->name.data(), size);
      return true;
    }
    return false;
  }
  int fd() const noexcept { return fd_; }

 private:
  base::mutex mutex_;
  io::dir_reader reader_ AREC_GUARDED_BY(mutex_);
  int fd_;  // reader_'s fd, constant: workers open paths relative to it without the lock
};

// The sink every worker hands its batches to; one batch at a time reaches the real sink.
class shared_sink {
 public:
  explicit shared_sink(io::record_sink& target) : target_(target) {}
  // Writes each record of `batch` (whole records back to back) to the target.
  void write_batch(std::span<const std::byte> batch) AREC_EXCLUDES(mutex_) {
    base::exclusive_lock lock{mutex_};
    while (!batch.empty()) {
      std::uint16_t size;
      std::memcpy(&size, batch.data() + 6, sizeof size);
      target_.write(batch.first(size));
      batch = batch.subspan(size);
    }
  }

 private:
  base::mutex mutex_;
  io::record_sink& target_;  // guarded by mutex_ (a reference: not annotatable)
};

// One worker's buffer: records collect here and go to the shared sink in batches, so workers
// meet on the lock once per batch instead of once per record.
class batching_sink : public io::record_sink {
 public:
  static constexpr std::size_t capacity = 256 * 1024;
  explicit batching_sink(shared_sink& target)
      : target_(target), buffer_(std::make_unique<std::byte[]>(capacity)) {}
  void write(std::span<const std::byte> record) override {
    if (used_ + record.size() > capacity) flush();
    std::memcpy(buffer_.get() + used_, record.data(), record.size());
    used_ += record.size();
  }
  void flush() {
    target_.write_batch({buffer_.get(), used_});
    used_ = 0;
  }

 private:
  shared_sink& target_;
  std::unique_ptr<std::byte[]> buffer_;
  std::size_t used_ = 0;
};

synthesis_counts synthesize_in_parallel(io::record_sink& sink, const synthesis_config& config) {
  process_queue queue{config.proc_root};
  shared_sink shared{sink};
  std::vector<synthesis_counts> counts(config.threads);
  run_workers(config.threads, [&](unsigned worker) {
    batching_sink batch{shared};
    auto scanner = std::make_unique<task_scanner>(batch, config);  // ~16 KiB of buffers
    std::array<char, 16> name;
    std::size_t size = 0;
    while (queue.next(name, size)) scanner->process(queue.fd(), {name.data(), size}, true);
    batch.flush();
    counts[worker] = scanner->counts;
  });
  synthesis_counts total;
  for (const synthesis_counts& part : counts) {
    total.processes += part.processes;
    total.threads += part.threads;
    total.mmaps += part.mmaps;
  }
  return total;
}

}  // namespace

synthesis_counts synthesize_all_tasks(io::record_sink& sink, const synthesis_config& config) {
  perf_data::check_sample_id_size(config.sample_id_size);
  if (config.threads > 1) return synthesize_in_parallel(sink, config);
  task_scanner scanner{sink, config};
  io::dir_reader processes{open_proc(config.proc_root)};
  while (auto entry = processes.next()) {
    if (!all_digits(entry->name)) continue;
    scanner.process(processes.fd(), entry->name, true);
  }
  return scanner.counts;
}

synthesis_counts synthesize_processes(io::record_sink& sink, std::span<const int> pids,
                                      const synthesis_config& config) {
  task_scanner scanner{sink, config};
  io::unique_fd proc = open_proc(config.proc_root);
  std::vector<int> done;  // per target process, not per task: -p lists are short
  for (int pid : pids) {
    int tgid = scanner.tgid_of(proc.get(), pid);
    if (tgid < 0 || std::find(done.begin(), done.end(), tgid) != done.end()) continue;
    done.push_back(tgid);
    char digits[16];
    auto end = std::to_chars(digits, digits + sizeof digits, tgid).ptr;
    scanner.process(proc.get(), std::string_view{digits, static_cast<std::size_t>(end - digits)},
                    false);
  }
  return scanner.counts;
}

}  // namespace arec::record
