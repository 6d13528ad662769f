# bash completion for arec: options of `arec`, `arec convert`, `arec archive`, `arec export` and
# `arec report`,
# their values where they are
# a known set, files for -o/-i, and the workload after `--`. Kept in sync with the parsers'
# option tables by tests/cli/manual_test.cpp.

_arec_record_options='-a --all-cpus -C --cpu -t --tid -i --no-inherit -p --pid -u --uid --per-thread -G --cgroup -e --event --group -F --freq
  --strict-freq -n --no-samples --all-user --all-kernel -k --clockid -T --timestamp --sample-cpu
  -P --period -d --data --phys-data --data-page-size --code-page-size -W --weight -R --raw-samples
  --user-regs -I --intr-regs --sample-identifier -b --branch-any -j --branch-filter -s --stat --switch-events --off-cpu --off-cpu-thresh --latency --namespaces --all-cgroups --filter --exclude-perf -c --count -g --call-graph
  -o --output --switch-output --switch-max-files --timestamp-filename --max-size
  -z --compression-level --buildid-mmap -B --no-buildid -N --no-buildid-cache --buildid-all --debuginfod-deadline
  -q --quiet -v --verbose -m --mmap-pages --no-buffering --mmap-flush --overwrite --threads
  -r --realtime --synth --num-thread-synthesize -D --delay --control --timestamp-boundary --duration --dry-run
  --push --push-format --push-interval --push-label --push-tenant --push-token-file --push-password-file --push-spool --push-no-inline -h --help
  --version'
_arec_convert_options='-i --input -o --output --keep-compressed -z --compress
  --compression-level --salvage --no-off-cpu-switches -q --quiet -v --verbose -h --help'
_arec_archive_options='-i --input -o --output -q --quiet -h --help'
_arec_export_options='-i --input -o --output --format --salvage --no-inline -q --quiet -h --help'
_arec_report_options='-i --input -o --output --diff --salvage -q --quiet -h --help'

_arec() {
  local cur prev words cword
  _init_completion -n = || return

  local i command=record
  for ((i = 1; i < cword; i++)); do
    if [[ ${words[i]} == -- ]]; then
      # The workload: complete it as a command line of its own.
      _command_offset $((i + 1))
      return
    fi
    [[ $i == 1 && ${words[i]} =~ ^(convert|archive|export|report)$ ]] && command=${words[i]}
  done

  case $prev in
    -o | --output | -i | --input | --diff | --push-token-file | --push-password-file)
      _filedir
      return
      ;;
    --push-spool)
      _filedir -d
      return
      ;;
    --push | --push-interval | --push-label | --push-tenant)
      return
      ;;
    -p | --pid)
      _pids
      return
      ;;
    -C | --cpu | -c | --count | -F | --freq | -m | --mmap-pages | --mmap-flush | -D | --delay | \
      -r | --realtime | \
      --compression-level | --num-thread-synthesize | --duration | --switch-max-files | --max-size)
      [[ $prev == -F || $prev == --freq ]] && COMPREPLY=($(compgen -W 'max' -- "$cur"))
      return
      ;;
    -u | --uid)
      COMPREPLY=($(compgen -u -- "$cur"))
      return
      ;;
    -e | --event)
      COMPREPLY=($(compgen -W 'cycles instructions cpu-clock task-clock page-faults
        context-switches cpu-migrations' -- "$cur"))
      return
      ;;
    --control)
      COMPREPLY=($(compgen -W 'fd: fifo:' -- "$cur"))
      compopt -o nospace
      return
      ;;
    --synth)
      COMPREPLY=($(compgen -W 'no all task mmap cgroup' -- "$cur"))
      return
      ;;
    --format)
      [[ $command == export ]] && COMPREPLY=($(compgen -W 'pprof folded otlp' -- "$cur"))
      return
      ;;
    --push-format)
      COMPREPLY=($(compgen -W 'pyroscope otlp parca' -- "$cur"))
      return
      ;;
    --call-graph)
      COMPREPLY=($(compgen -W 'fp dwarf' -- "$cur"))
      return
      ;;
    -k | --clockid)
      COMPREPLY=($(compgen -W 'monotonic monotonic_raw realtime boottime tai' -- "$cur"))
      return
      ;;
  esac

  if [[ $cur == --threads=* ]]; then
    COMPREPLY=($(compgen -W 'cpu core package numa' -- "${cur#--threads=}"))
    return
  fi
  if [[ $cur == -* ]]; then
    local options=_arec_${command}_options
    COMPREPLY=($(compgen -W "${!options}" -- "$cur"))
    [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
    return
  fi
  if ((cword == 1)); then
    COMPREPLY=($(compgen -W 'convert archive export report' -c -- "$cur"))
    return
  fi
  case $command in
    record) COMPREPLY=($(compgen -c -- "$cur")) ;;
    archive) _filedir ;;  # perf archive's form: the recording as an argument
  esac
}
complete -F _arec arec
