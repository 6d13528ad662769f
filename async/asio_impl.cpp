// The one translation unit that compiles Asio's implementation (ASIO_SEPARATE_COMPILATION),
// so that other files include only declarations and build quickly.
#include <asio/impl/src.hpp>
