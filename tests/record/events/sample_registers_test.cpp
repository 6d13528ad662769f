#include "record/events/sample_registers.hpp"

#include <gtest/gtest.h>

namespace arec::record {
namespace {

TEST(SampleRegisters, NamesInAnyCaseBecomeTheKernelsBits) {
  std::string unknown;
  EXPECT_EQ(parse_sample_registers("ip,sp", unknown), 0x180u);
  EXPECT_EQ(parse_sample_registers("AX,Flags,r15", unknown), (1u << 0) | (1u << 9) | (1u << 23));
  EXPECT_EQ(unknown, "");
}

TEST(SampleRegisters, TheFirstUnknownNameIsReported) {
  std::string unknown;
  EXPECT_EQ(parse_sample_registers("ip,xmm0,foo", unknown), std::nullopt);
  EXPECT_EQ(unknown, "xmm0");
  EXPECT_EQ(parse_sample_registers("ip,", unknown), std::nullopt);
  EXPECT_EQ(unknown, "");
}

TEST(SampleRegisters, TheListNamesEveryRegisterOfTheDefaultSet) {
  std::string names = sample_register_names();
  EXPECT_EQ(names, "AX BX CX DX SI DI BP SP IP FLAGS CS SS R8 R9 R10 R11 R12 R13 R14 R15");
  std::string all(names);
  for (char& c : all) c = c == ' ' ? ',' : c;
  std::string unknown;
  EXPECT_EQ(parse_sample_registers(all, unknown), default_sample_registers);
}

}  // namespace
}  // namespace arec::record
