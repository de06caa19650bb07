#!/bin/bash
# ncu metrics (pipes, issue, stalls) of the fill kernels: ncu.sh VARS VARIANT...
M=smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
for p in fma fmaheavy alu fp64 lsu xu; do M=$M,sm__pipe_${p}_cycles_active.avg.pct_of_peak_sustained_active; done
M=$M,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active
for s in long_scoreboard short_scoreboard math_pipe_throttle wait barrier lg_throttle mio_throttle not_selected selected no_instruction dispatch_stall branch_resolving; do
  M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
NCU=1 ncu --kernel-name random_fill --metrics $M python3 "$(dirname "$0")/ab.py" "$@" 2>&1 | grep -v "^==PROF==" | grep -E "random_fill|\.(sum|pct|ratio)" | sed 's/  */ /g'
