// task<T>: arec's coroutine type. It is asio::awaitable, which resumes frames from a trampoline
// (no stack growth on synchronous completion) and recycles frames per thread (no malloc in
// steady-state loops).
#pragma once

#include <asio/awaitable.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/use_awaitable.hpp>

namespace arec::async {

template <typename T = void>
using task = asio::awaitable<T>;

}  // namespace arec::async
