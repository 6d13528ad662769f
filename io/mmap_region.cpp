#include "io/mmap_region.hpp"

#include "base/system_error.hpp"

namespace arec::io {

mmap_region mmap_region::map(int fd, std::size_t length, int prot, int flags, std::string_view what,
                             off_t offset) {
  void* data = ::mmap(nullptr, length, prot, flags, fd, offset);
  if (data == MAP_FAILED) base::throw_errno("mmap", what);
  return mmap_region{data, length};
}

}  // namespace arec::io
