#include "perf_data/record_encoders.hpp"

#include <linux/perf_event.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "perf_data/perf_abi.hpp"

namespace arec::perf_data {
namespace {

std::size_t align8(std::size_t n) {
  return (n + 7) & ~std::size_t{7};
}

// Lays out a record: header, fixed fields, optional padded string, zero trailer.
class record_writer {
 public:
  record_writer(record_buffer& out, std::uint32_t type, std::uint16_t misc) : out_(out) {
    std::memset(out_.data(), 0, sizeof(perf_data::record_header));
    std::memcpy(out_.data(), &type, sizeof type);
    std::memcpy(out_.data() + 4, &misc, sizeof misc);
    size_ = sizeof(perf_data::record_header);
  }
  template <typename T>
  void put(T value) {
    std::memcpy(out_.data() + size_, &value, sizeof value);
    size_ += sizeof value;
  }
  void put_string(std::string_view text) {  // caller guarantees it fits
    std::size_t padded = align8(text.size() + 1);
    std::memcpy(out_.data() + size_, text.data(), text.size());
    std::memset(out_.data() + size_ + text.size(), 0, padded - text.size());
    size_ += padded;
  }
  std::span<const std::byte> finish(std::size_t sample_id_size) {
    std::memset(out_.data() + size_, 0, sample_id_size);
    size_ += sample_id_size;
    auto size16 = static_cast<std::uint16_t>(size_);
    std::memcpy(out_.data() + 6, &size16, sizeof size16);
    return {out_.data(), size_};
  }

 private:
  record_buffer& out_;
  std::size_t size_ = 0;
};

// The fields MMAP and MMAP2 share, in their order.
void put_mapping(record_writer& record, const mapping_record& fields) {
  record.put(fields.pid);
  record.put(fields.tid);
  record.put(fields.start);
  record.put(fields.len);
  record.put(fields.pgoff);
}

void put_name(record_writer& record, std::string_view name) {
  record.put_string(name.size() < PATH_MAX ? name : too_long_name);
}

}  // namespace

void check_sample_id_size(std::size_t size) {
  if (size % 8 != 0 || size > max_sample_id_size)
    throw std::invalid_argument("sample_id_size must be a multiple of 8 and at most 48");
}

std::span<const std::byte> encode_comm(record_buffer& out, std::uint32_t pid, std::uint32_t tid,
                                       std::string_view comm, std::size_t sample_id_size) {
  check_sample_id_size(sample_id_size);
  record_writer record{out, PERF_RECORD_COMM, 0};
  record.put(pid);
  record.put(tid);
  record.put_string(comm.substr(0, 15));
  return record.finish(sample_id_size);
}

std::span<const std::byte> encode_fork(record_buffer& out, std::uint32_t pid, std::uint32_t ppid,
                                       std::uint32_t tid, std::uint32_t ptid,
                                       std::size_t sample_id_size) {
  check_sample_id_size(sample_id_size);
  record_writer record{out, PERF_RECORD_FORK, perf_data::misc_fork_exec};
  record.put(pid);
  record.put(ppid);
  record.put(tid);
  record.put(ptid);
  record.put(std::uint64_t{0});  // time: synthesized records are applied in read order
  return record.finish(sample_id_size);
}

std::span<const std::byte> encode_mmap(record_buffer& out, const mapping_record& fields,
                                       std::size_t sample_id_size) {
  check_sample_id_size(sample_id_size);
  record_writer record{out, PERF_RECORD_MMAP, fields.misc};
  put_mapping(record, fields);
  put_name(record, fields.name);
  return record.finish(sample_id_size);
}

std::span<const std::byte> encode_mmap2(record_buffer& out, const mapping_record& fields,
                                        std::size_t sample_id_size) {
  check_sample_id_size(sample_id_size);
  record_writer record{out, PERF_RECORD_MMAP2, fields.misc};
  put_mapping(record, fields);
  if (fields.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
    // The 24 bytes of the identity: the build-id's size, 3 reserved, 20 of build-id.
    record.put(fields.id.size);
    record.put(std::array<std::uint8_t, 3>{});
    record.put(fields.id.bytes);
  } else {
    record.put(fields.major);
    record.put(fields.minor);
    record.put(fields.inode);
    record.put(fields.inode_generation);
  }
  record.put(fields.prot);
  record.put(fields.flags);
  put_name(record, fields.name);
  return record.finish(sample_id_size);
}

std::span<const std::byte> encode_cgroup(record_buffer& out, std::uint64_t id,
                                         std::string_view path, std::size_t sample_id_size) {
  check_sample_id_size(sample_id_size);
  if (path.size() >= PATH_MAX)
    throw std::invalid_argument("cgroup path of " + std::to_string(path.size()) +
                                " bytes is longer than PATH_MAX");
  record_writer record{out, PERF_RECORD_CGROUP, 0};
  record.put(id);
  record.put_string(path);
  return record.finish(sample_id_size);
}

}  // namespace arec::perf_data
