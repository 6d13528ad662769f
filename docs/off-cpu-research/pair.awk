# input: perf script -F tid,time,event,misc --show-switch-events ; pairs non-preempt OUT with next IN per tid
{ tid=$1; }
/PERF_RECORD_SWITCH/ { t=$0; sub(/:.*/,"",t); n=split(t,a," "); ts=a[n]+0;
  if ($0 ~ / OUT/) { if ($0 ~ /preempt/) { pre[tid]=1 } else { pre[tid]=0 }; out[tid]=ts; have[tid]=1 }
  else if (have[tid]) { d=(ts-out[tid])*1e3; if (pre[tid]) np++; else { printf "tid %s blocked %.3f ms\n", tid, d; nb++ }; have[tid]=0 } }
END { printf "blocked pairs %d, preempt pairs (excluded) %d\n", nb, np }
