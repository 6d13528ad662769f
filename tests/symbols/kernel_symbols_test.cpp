#include "symbols/kernel_symbols.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "support/temp_file.hpp"

namespace arec::symbols {
namespace {

// Out of order, with data symbols, a hidden address and a module, as kallsyms can be.
constexpr std::string_view kallsyms_text =
    "ffffffff81000000 T _text\n"
    "ffffffff81001000 t do_one_initcall\n"
    "ffffffff81000800 T early_idt_handler\n"
    "ffffffff81000800 T alias_of_early_idt_handler\n"
    "ffffffff82000000 D some_data\n"
    "0000000000000000 T hidden_by_kptr_restrict\n"
    "ffffffffc0001000 t ext4_map_blocks\t[ext4]\n"
    "not a symbol line\n";

TEST(KernelSymbols, NamesEachAddressByTheTextSymbolAtOrBelowIt) {
  test::temp_file file;
  ASSERT_EQ(::write(file.fd(), kallsyms_text.data(), kallsyms_text.size()),
            static_cast<ssize_t>(kallsyms_text.size()));
  std::vector<std::uint64_t> addresses{0xffffffff80000000, 0xffffffff81000010, 0xffffffff81000900,
                                       0xffffffff81000901, 0xffffffff81001004, 0xffffffff82000010,
                                       0xffffffffc0001040};
  auto names = kernel_function_names(file.path().c_str(), addresses);
  ASSERT_TRUE(names.has_value());
  EXPECT_EQ(*names,
            (std::vector<std::string>{"", "_text", "early_idt_handler", "early_idt_handler",
                                      "do_one_initcall", "do_one_initcall", "ext4_map_blocks"}));
}

TEST(KernelSymbols, AMissingFileIsNoNames) {
  std::vector<std::uint64_t> addresses{0xffffffff81000000};
  EXPECT_FALSE(kernel_function_names("/nonexistent/kallsyms", addresses).has_value());
}

}  // namespace
}  // namespace arec::symbols
