# Parts of run-on-gpu.sh for loader paths and frameworks (sourced by it; uses its tenant, note,
# field and $build, $here, $log, $work).

part_escapes() {
  note "## 7. A CUDA library loaded apart from the interposer: RTLD_DEEPBIND, dlmopen"
  note ""
  note "loader_probe.c loads the %smid probe library (smid_probe.cu, 4096 blocks; the CUDA runtime"
  note "linked statically into it) plainly, with RTLD_DEEPBIND, or with dlmopen(LM_ID_NEWLM), and"
  note "counts distinct SMs twice. Claim victim: groups 0,1 (16 SMs)."
  note ""
  gcc -O2 -o "$build/loader_probe" "$here/loader_probe.c" -ldl >>"$log" 2>&1
  note "| load | claim victim: distinct SMs (1st, 2nd) | exit | no interposer: distinct SMs |"
  note "|---|---|---|---|"
  local mode r n rc
  for mode in plain deepbind dlmopen; do
    tenant victim timeout 60 "$build/loader_probe" $mode "$build/libsmid_probe.so" > "$work/loader-$mode.txt" 2>>"$log"
    rc=$?
    r=$(tail -1 "$work/loader-$mode.txt")
    n=$(tenant none timeout 60 "$build/loader_probe" $mode "$build/libsmid_probe.so" 2>>"$log" | tail -1)
    echo "loader $mode: sliced [$r] unsliced [$n]" >> "$log"
    note "| $mode | $(field "$r" distinct_sms), $(field "$r" second_distinct_sms) | $rc | $(field "$n" distinct_sms) |"
  done
  note ""
  note "Processes of loader_probe the agent registered: $(grep -c loader_probe "$work/agent/attached.log" 2>/dev/null)"
  note ""
  r=$(tenant victim timeout 120 python3 -c 'import torch; p = torch.cuda.get_device_properties(0); print(f"multi_processor_count={p.multi_processor_count}")' 2>>"$log" | tail -1)
  n=$(tenant none timeout 120 python3 -c 'import torch; p = torch.cuda.get_device_properties(0); print(f"multi_processor_count={p.multi_processor_count}")' 2>>"$log" | tail -1)
  note "torch.cuda.get_device_properties(0).multi_processor_count: claim victim $(field "$r" multi_processor_count), no interposer $(field "$n" multi_processor_count)"
  note ""
}

part_numba() {
  note "## 8. numba in a slice"
  note ""
  note "numba_checks.py: a numba kernel (1M floats, +1) called twice in one process, result checked;"
  note "the %smid probe in the same process. Two processes per setup."
  note ""
  note "| setup | run | result |"
  note "|---|---|---|"
  local claim i r
  for claim in victim none; do
    for i in 1 2; do
      r=$(tenant $claim timeout 180 python3 "$here/numba_checks.py" 2>>"$log" | tail -1)
      echo "numba $claim $i: $r" >> "$log"
      note "| $claim | $i | ${r:-no output (see run.log)} |"
    done
  done
  note ""
}
