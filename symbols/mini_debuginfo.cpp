#include "symbols/mini_debuginfo.hpp"

#include <gelf.h>
#include <lzma.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string_view>

#include "base/shared_library.hpp"
#include "symbols/elf_build_id.hpp"

namespace arec::symbols {
namespace {

struct lzma_functions {
  decltype(&lzma_stream_decoder) stream_decoder = nullptr;
  decltype(&lzma_code) code = nullptr;
  decltype(&lzma_end) end = nullptr;
};

// liblzma, loaded once per process (a failed load is tried again by the next call). Throws
// std::runtime_error saying what needs it.
const lzma_functions& liblzma() {
  static const base::shared_library library(
      {"liblzma.so.5"}, "reading MiniDebugInfo (.gnu_debugdata; liblzma, Debian: liblzma5)");
  static const lzma_functions functions = [] {
    lzma_functions f;
    f.stream_decoder =
        library.function<decltype(lzma_stream_decoder)>("lzma_stream_decoder", "XZ_5.0");
    f.code = library.function<decltype(lzma_code)>("lzma_code", "XZ_5.0");
    f.end = library.function<decltype(lzma_end)>("lzma_end", "XZ_5.0");
    return f;
  }();
  return functions;
}

// `in`, an .xz stream, decompressed; nullopt when it is not one or outgrows the bound.
std::optional<std::vector<std::byte>> xz_decompress(const std::byte* in, std::size_t size) {
  const lzma_functions& xz = liblzma();
  lzma_stream stream = LZMA_STREAM_INIT;
  if (xz.stream_decoder(&stream, 256u << 20, 0) != LZMA_OK) return std::nullopt;
  auto ended = [&xz](lzma_stream* s) { xz.end(s); };
  std::unique_ptr<lzma_stream, decltype(ended)> guard(&stream, ended);
  stream.next_in = reinterpret_cast<const std::uint8_t*>(in);
  stream.avail_in = size;
  std::vector<std::byte> out(std::max<std::size_t>(size * 4, 4096));
  for (;;) {
    stream.next_out = reinterpret_cast<std::uint8_t*>(out.data()) + stream.total_out;
    stream.avail_out = out.size() - stream.total_out;
    lzma_ret result = xz.code(&stream, LZMA_FINISH);
    if (result == LZMA_STREAM_END) break;
    if (result != LZMA_OK && result != LZMA_BUF_ERROR) return std::nullopt;
    if (stream.avail_out != 0) return std::nullopt;  // input ended before the stream did
    if (out.size() >= max_mini_debuginfo_bytes) return std::nullopt;
    out.resize(std::min(out.size() * 2, max_mini_debuginfo_bytes));
  }
  out.resize(stream.total_out);
  return out;
}

Elf_Scn* section_named(Elf* elf, std::string_view wanted) {
  std::size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) return nullptr;
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section; section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (!gelf_getshdr(section, &header)) continue;
    const char* name = elf_strptr(elf, names, header.sh_name);
    if (name && wanted == name) return header.sh_type == SHT_PROGBITS ? section : nullptr;
  }
  return nullptr;
}

struct elf_closer {
  void operator()(Elf* elf) const noexcept { elf_end(elf); }
};

}  // namespace

std::optional<std::vector<std::byte>> read_mini_debuginfo(Elf* elf) {
  Elf_Scn* section = elf ? section_named(elf, ".gnu_debugdata") : nullptr;
  Elf_Data* data = section ? elf_rawdata(section, nullptr) : nullptr;
  if (!data || !data->d_buf || data->d_size == 0) return std::nullopt;
  try {
    return xz_decompress(static_cast<const std::byte*>(data->d_buf), data->d_size);
  } catch (const std::runtime_error&) {
    return std::nullopt;  // no liblzma: the object keeps its .dynsym names
  }
}

std::optional<std::vector<std::byte>> read_mini_debuginfo(int fd) {
  if (elf_version(EV_CURRENT) == EV_NONE) return std::nullopt;
  std::unique_ptr<Elf, elf_closer> elf{elf_begin(fd, ELF_C_READ_MMAP, nullptr)};
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) return std::nullopt;
  return read_mini_debuginfo(elf.get());
}

bool has_build_id(std::vector<std::byte>& image, const perf_data::build_id& id) {
  if (image.empty() || elf_version(EV_CURRENT) == EV_NONE) return false;
  std::unique_ptr<Elf, elf_closer> elf{elf_memory(reinterpret_cast<char*>(image.data()), image.size())};
  return read_elf_build_id(elf.get()) == id;
}

}  // namespace arec::symbols
