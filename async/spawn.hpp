// spawn: starting coroutines and posting work, so that the layers above name arec's executor
// and never Asio itself.
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/post.hpp>
#include <exception>
#include <utility>

#include "async/task.hpp"

namespace arec::async {

using executor = asio::any_io_executor;

// Starts `work` on `on`; `done(failure)` runs there when it ends (failure is null on success).
template <typename Done>
void spawn(const executor& on, task<void> work, Done done) {
  asio::co_spawn(on, std::move(work), std::move(done));
}

// Starts `work` on `on` with no one to tell: it ends by itself or with its executor's context.
inline void spawn_detached(const executor& on, task<void> work) {
  asio::co_spawn(on, std::move(work), asio::detached);
}

// Lets the handlers already queued on `on` run first (e.g. coroutines an event just resumed),
// then continues: a trip through the queue, no system call.
inline task<void> yield(const executor& on) {
  co_await asio::post(on, asio::use_awaitable);
  co_return;
}

// Runs `fn` on `on`'s thread, later; callable from any thread.
template <typename Fn>
void post(const executor& on, Fn fn) {
  asio::post(on, std::move(fn));
}

}  // namespace arec::async
