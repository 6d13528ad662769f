// mapping_record: what record_encoders writes from a mapping_record, parse_mapping_record reads
// back field for field, in each of the three forms (MMAP, MMAP2 with the file's identity, MMAP2
// with a build-id), laid out as the kernel lays them out.
#include "perf_data/mapping_record.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/mman.h>

#include <cstring>

#include "perf_data/record_encoders.hpp"

namespace arec::perf_data {
namespace {

constexpr std::size_t trailer = 32;

mapping_record a_mapping() {
  mapping_record fields;
  fields.misc = PERF_RECORD_MISC_USER;
  fields.pid = 100;
  fields.tid = 101;
  fields.start = 0x400000;
  fields.len = 0x3000;
  fields.pgoff = 0x2000;
  fields.prot = PROT_READ | PROT_EXEC;
  fields.flags = MAP_PRIVATE;
  fields.name = "/usr/bin/app";
  return fields;
}

void expect_common_fields(const mapping_record& read, const mapping_record& written) {
  EXPECT_EQ(read.misc, written.misc);
  EXPECT_EQ(read.pid, written.pid);
  EXPECT_EQ(read.tid, written.tid);
  EXPECT_EQ(read.start, written.start);
  EXPECT_EQ(read.len, written.len);
  EXPECT_EQ(read.pgoff, written.pgoff);
  EXPECT_EQ(read.name, written.name);
}

TEST(MappingRecord, Mmap2WithTheFilesIdentityReadsBackAsWritten) {
  mapping_record written = a_mapping();
  written.major = 0xfe;
  written.minor = 1;
  written.inode = 0x1122334455;
  written.inode_generation = 7;
  record_buffer buffer;
  std::optional<mapping_record> read = parse_mapping_record(encode_mmap2(buffer, written, trailer));
  ASSERT_TRUE(read);
  expect_common_fields(*read, written);
  EXPECT_EQ(read->major, 0xfeu);
  EXPECT_EQ(read->minor, 1u);
  EXPECT_EQ(read->inode, 0x1122334455u);
  EXPECT_EQ(read->inode_generation, 7u);
  EXPECT_TRUE(read->id.empty());
  EXPECT_EQ(read->prot, written.prot);
  EXPECT_EQ(read->flags, written.flags);
}

// The kernel's build-id variant: the 24 identity bytes are the build-id's size, 3 reserved bytes
// and 20 bytes of build-id (docs/perf-data-format.md, "MMAP2").
TEST(MappingRecord, Mmap2WithABuildIdReadsBackAsWrittenInTheKernelsLayout) {
  mapping_record written = a_mapping();
  written.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
  const std::byte id[] = {std::byte{0xab}, std::byte{0xcd}, std::byte{0xef}};
  written.id = build_id::from(id);
  record_buffer buffer;
  std::span<const std::byte> bytes = encode_mmap2(buffer, written, trailer);
  std::uint8_t size_byte = 0;
  std::memcpy(&size_byte, bytes.data() + 40, 1);
  EXPECT_EQ(size_byte, 3);
  EXPECT_EQ(bytes[44], std::byte{0xab});
  EXPECT_EQ(bytes[46], std::byte{0xef});
  std::uint32_t prot = 0;
  std::memcpy(&prot, bytes.data() + 64, sizeof prot);
  EXPECT_EQ(prot, written.prot);

  std::optional<mapping_record> read = parse_mapping_record(bytes);
  ASSERT_TRUE(read);
  expect_common_fields(*read, written);
  EXPECT_EQ(read->id, written.id);
  EXPECT_EQ(read->id.hex(), "abcdef");
  EXPECT_EQ(read->major, 0u);
  EXPECT_EQ(read->inode, 0u);
  EXPECT_EQ(read->prot, written.prot);
  EXPECT_EQ(read->flags, written.flags);
}

// MMAP has no identity, protection or flags: the kernel's map, pid -1 (perf's HOST_KERNEL_ID).
TEST(MappingRecord, MmapOfTheKernelReadsBackAsWritten) {
  mapping_record written;
  written.misc = PERF_RECORD_MISC_KERNEL;
  written.pid = -1;
  written.start = 0xffffffff81000000;
  written.len = 0x1000000;
  written.pgoff = 0xffffffff81000000;
  written.name = "[kernel.kallsyms]_text";
  record_buffer buffer;
  std::optional<mapping_record> read = parse_mapping_record(encode_mmap(buffer, written, trailer));
  ASSERT_TRUE(read);
  expect_common_fields(*read, written);
  EXPECT_EQ(read->prot, 0u);
}

TEST(MappingRecord, ARecordCutShortOrOfAnotherTypeIsNoMapping) {
  record_buffer buffer;
  mapping_record written = a_mapping();
  std::span<const std::byte> bytes = encode_mmap2(buffer, written, trailer);
  EXPECT_FALSE(parse_mapping_record(bytes.first(60)));
  EXPECT_FALSE(parse_mapping_record(bytes.first(4)));
  record_buffer comm;
  EXPECT_FALSE(parse_mapping_record(encode_comm(comm, 1, 1, "app", trailer)));
}

}  // namespace
}  // namespace arec::perf_data
