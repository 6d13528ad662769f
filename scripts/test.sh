#!/usr/bin/env bash
# Installs, builds and runs every test, in three configurations:
#   1. RelWithDebInfo (build/)                      : all tests
#   2. ASan + UBSan, g++ (build-asan/)              : all tests but the comparisons with perf
#      (ctest -E "$AREC_ASAN_EXCLUDE")
#   3. TSan, clang++ (build-tsan/), -Wthread-safety : the concurrency tests, chosen by name with
#      ctest -R "$AREC_TSAN_TESTS" -E "$AREC_TSAN_EXCLUDE" (defaults below; docs/testing.md)
# The sanitizer configurations do not compile the e2e tests: they run build/'s e2e test program
# against their own arec (-DAREC_E2E_FROM; docs/testing.md).
# With CI=true a skipped test (GTEST_SKIP) counts as a failure. JOBS sets build parallelism
# (default 2). Every configuration runs even when an earlier one failed; the exit status is
# non-zero if any did. A build error stops the script at once.
# The sanitizer builds run in the background, at the lowest priority, while the configuration
# before them runs its tests: ctest runs the e2e tests one at a time, and most of a test's time is spent
# waiting (on its workload, on perf), so the build takes the idle CPU and the tests run on a busy
# machine, as they must pass on one (CI's time: docs/testing.md).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export JOBS=${JOBS:-2}
tsan_tests=${AREC_TSAN_TESTS:-'Concurrent|Thread|Stream|Uring|Async|Executor|Pool|Parallel|^Record|Fuzz|^Fleet|^Push'}
# The suites that record one command line with arec and with perf record and compare what perf
# reads back: the recording pipeline they run is the one the other ^Record suites run, and the
# option parsing and attrs they compare have unit tests (tests/cli, tests/record/events) that
# both sanitizer configurations run. They run in the release configuration only.
# ConvertJitdump.WritesAFile...: perf record and perf inject's time, beside an arec convert the
# other ConvertJitdump test runs too.
perf_comparisons='^Record(PerfOptions|EventTerms|EventGroups|PerfShellChecks|TracepointFilter)\.|^ConvertJitdump\.WritesAFileAGeneration'
asan_exclude=${AREC_ASAN_EXCLUDE:-$perf_comparisons}
# RecordEvents also compares with perf; TSan leaves it out too (ASan runs it: it checks the
# error messages for events this machine cannot count).
# ^Export: the export tool is single-threaded (ExportInputs matches "Thread" by its name only).
# SwitchSignalWhileRecordingIsNamedAsIgnored: TSan's runtime defers signal handlers and, about
# one run in four, never calls arec's for a SIGUSR2 the kernel delivered (no signal pending, the
# handler's counter unchanged, a second SIGUSR2 is handled): a limit of TSan, not of arec.
# TerminationAtAnyMomentLeavesACompleteFile: the same loss of a SIGTERM, about one TSan run in
# 40, at 125-140 ms into `arec -a` (gdb on the hung arec: handler counter 0, nothing pending,
# the main thread in its event loop); 0 in 400 release tries over its first 40 ms.
# The rotation tests driven by SIGUSR2 wait for the first one to switch: the same loss left
# RecordRotation.ThreadsSwitchOnEverySigusr2 without its first file once in CI's TSan run and
# once in ~75 local TSan runs (0 in 20 release runs); release and ASan run all of them.
# CI's 30 minutes (docs/testing.md): the kill -9 tests (a killed arec reports nothing at exit; what
# they check is the salvage, a single-threaded convert), the push formats but Pyroscope's (the
# push thread is the same for all three; only the encoding differs, which ASan runs) and the
# debuginfod server that never answers (5 s of waiting at the end, on the main thread alone).
tsan_costly='^Record(Failure|OffCpu)\.KillNine|^Record/RecordPushFormat\..*/(otlp|parca)( |$)|^RecordDebuginfod\.AServerThatNeverAnswers'
tsan_exclude=${AREC_TSAN_EXCLUDE:-"$perf_comparisons|^RecordEvents\.|^Export|$tsan_costly|^RecordSignals\.(SwitchSignalWhileRecordingIsNamedAsIgnored|TerminationAtAnyMomentLeavesACompleteFile)\$|^RecordRotation\.(EverySigusr2SwitchesOnce|ThreadsSwitchOnEverySigusr2|JitCodeMappedBeforeASwitchResolvesInTheNextFile)\$"}
ci=false
[[ "${CI:-}" == true ]] && ci=true

failures=()
started=$SECONDS

banner() { printf '\n==== %s (%ds elapsed)\n' "$*" $((SECONDS - started)); }

# run_ctest NAME BUILD_DIR [CTEST ARGS...]: runs ctest (behind "${ctest_prefix[@]}"), prints its
# summary, records failures, and under CI=true turns skipped tests into failures, naming them.
ctest_prefix=()
failure_excerpts=()
# failure_excerpt LOG NAME TESTS: the last lines each failed test printed (--output-on-failure puts
# them after its "Test #N: name ...***Failed" line), so that the end of CI's output, which may be
# all a reader gets, says what failed and how.
failure_excerpt() {
  local log=$1 name=$2 test
  while IFS= read -r test; do
    [[ -n "$test" ]] || continue
    printf -- '---- %s: %s\n' "$name" "$test"
    awk -v t="$test" '
      index($0, ": " t " ") && /Test +#[0-9]+:/ { inside = 1; n = 0; next }
      inside && (/^ *Start +[0-9]+:/ || /^[0-9]+% tests passed/) { inside = 0 }
      inside { lines[n++ % 25] = $0 }
      END { for (i = (n > 25 ? n - 25 : 0); i < n; i++) print lines[i % 25] }' "$log"
  done <<<"$3"
}
run_ctest() {
  local name=$1 dir=$root/$2
  shift 2
  local log="$dir/ctest.log" status=0
  # Two tests at a time, but those that must run alone (RUN_SERIAL: the e2e tests and the
  # folders that change the host, tests/CMakeLists.txt) do.
  "${ctest_prefix[@]}" ctest --test-dir "$dir" --output-on-failure --no-tests=error \
    -j "$JOBS" --output-junit "$dir/ctest-junit.xml" "$@" 2>&1 | tee "$log" || status=$?
  # ctest lists skips under "The following tests did not run:" as "  N - Suite.Test (Skipped)".
  local skipped
  skipped=$(grep -E '^[[:space:]]*[0-9]+ - .* \(Skipped\)$' "$log" |
    sed -E 's/^[[:space:]]*[0-9]+ - (.*) \(Skipped\)$/\1/' || true)
  if ((status != 0)); then
    # ctest lists failures under "The following tests FAILED:" as "  N - Suite.Test (Failed)".
    local failed
    failed=$(sed -n '/^The following tests FAILED:/,$p' "$log" |
      sed -nE 's/^[[:space:]]*[0-9]+ - (.*) \([^()]*\)$/\1/p' || true)
    failures+=("$name: ctest failed (status $status): $(tr '\n' ' ' <<<"${failed:-(no test named)}")")
    failure_excerpts+=("$(failure_excerpt "$log" "$name" "$failed")")
  fi
  if [[ -n "$skipped" ]]; then
    if $ci; then
      echo "test.sh: CI=true and these tests were skipped (a skip is a failure in CI):" >&2
      printf '  %s\n' $skipped >&2
      failures+=("$name: skipped under CI: $(echo $skipped)")
    else
      echo "test.sh: note: skipped tests (a failure when CI=true):" $skipped
    fi
  fi
}

banner "install dependencies"
bash scripts/install-deps.sh

banner "layering (scripts/check-layers)"
python3 scripts/check-layers || failures+=("layering: scripts/check-layers found violations")
banner "paths named in the docs (scripts/check-doc-paths)"
python3 scripts/check-doc-paths || failures+=("docs: scripts/check-doc-paths found paths that do not exist")

# background_build NAME BUILD_DIR [ENV...] -- [BUILD ARGS...]: starts scripts/build.sh at nice 19,
# its output in BUILD_DIR.log; finish_build prints that log and stops the script if it failed.
background_pid=0 background_name="" background_log=""
# An interrupted run leaves no build behind: the build is its own process group (setsid).
trap '((background_pid == 0)) || kill -- "-$background_pid" 2>/dev/null || true' EXIT
background_build() {
  background_name=$1 background_log=$root/$2.log
  local dir=$2 environment=()
  shift 2
  while [[ $1 != -- ]]; do environment+=("$1"); shift; done
  shift
  banner "$background_name build ($dir/, in the background while the tests run; $dir.log)"
  # setsid gives the build a session, and with it a scheduler autogroup of its own where the
  # kernel has them (kernel.sched_autogroup_enabled): nice then only ranks tasks inside that
  # group, and the group as a whole would still take half the CPUs from the tests. The group's
  # own nice (/proc/self/autogroup) puts the whole build behind them.
  setsid env "${environment[@]}" bash -c \
    '{ echo 19 >/proc/self/autogroup; } 2>/dev/null; exec nice -n 19 bash scripts/build.sh "$@"' \
    build "$dir" "$@" >"$background_log" 2>&1 </dev/null &
  background_pid=$!
}
finish_build() {
  local status=0
  wait "$background_pid" || status=$?
  background_pid=0
  banner "$background_name build finished (status $status); its output:"
  cat "$background_log"
  if ((status != 0)); then
    echo "test.sh: the $background_name build failed" >&2
    exit "$status"
  fi
}

banner "RelWithDebInfo build (build/)"
bash scripts/build.sh build -DAREC_SANITIZE=

# The sanitizer builds keep line tables only (-g1): a report needs file and line, not variables,
# and full debug info is ~10 % of their compile time.
# They run build/'s e2e test program against their own arec instead of compiling it again: it
# starts arec as a process, so only arec needs the sanitizers (tests/CMakeLists.txt).
sanitizer_flags=(-DAREC_BENCH=OFF "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
  "-DAREC_E2E_FROM=$root/build")

background_build "ASan+UBSan" build-asan -- -DAREC_SANITIZE=address,undefined \
  "${sanitizer_flags[@]}"
banner "RelWithDebInfo: all tests"
run_ctest "RelWithDebInfo" build
finish_build

# TSan is built with clang, which also checks -Wthread-safety. The single-threaded tools' suites
# are not built: the selection below runs none of them.
background_build "TSan" build-tsan CC=clang CXX=clang++ -- -DAREC_SANITIZE=thread \
  "${sanitizer_flags[@]}" "-DAREC_SKIP_TEST_SUITES=cli;convert;symbols;export"
banner "ASan+UBSan: all tests but those matching '$asan_exclude'"
# intercept_tls_get_addr=0: gcc 12's runtime takes a dynamic TLS block (libdw's, dlopened) that
# malloc placed 16 bytes into a page for a glibc 2.19 header, reads a range from before it, and
# its leak checker then crashes at exit (docs/testing.md, "LeakSanitizer at exit").
ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_tls_get_addr=0} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} run_ctest "ASan+UBSan" build-asan \
  -E "$asan_exclude"
finish_build

banner "TSan: tests matching '$tsan_tests'"
# TSan needs a fixed memory layout on kernels with high mmap randomisation; setarch -R turns
# address randomisation off for ctest and everything it starts.
ctest_prefix=(setarch "$(uname -m)" -R)
TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} \
  run_ctest "TSan" build-tsan -R "$tsan_tests" -E "$tsan_exclude"
ctest_prefix=()

banner "done"
if ((${#failures[@]} > 0)); then
  if ((${#failure_excerpts[@]} > 0)); then
    echo "test.sh: the end of each failed test's output (all of it: the configuration's ctest.log)"
    printf '%s\n' "${failure_excerpts[@]}"
  fi
  echo "test.sh: FAILED:" >&2
  printf '  %s\n' "${failures[@]}" >&2
  exit 1
fi
echo "test.sh: all configurations passed"
