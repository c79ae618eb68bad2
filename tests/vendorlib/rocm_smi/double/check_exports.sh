#!/bin/sh
# The doubles export ROCm SMI entry points and nothing else, carry the SONAMEs
# librocm_smi64.so.7 (ROCm SMI 7) and librocm_smi64.so.5 (ROCm SMI 5), and the old build
# lacks every entry point ROCm SMI 5 did not have.
# usage: check_exports.sh CURRENT_LIB OLD_LIB
set -u
cur=$1
old=$2
fail=0
syms() { nm -D --defined-only "$1" | awk '{print $NF}' | sort; }
for lib in "$cur" "$old"; do
  other=$(syms "$lib" | grep -v '^rsmi_')
  if [ -n "$other" ]; then
    echo "$lib exports symbols that are not ROCm SMI's: $other"
    fail=1
  fi
done
readelf -d "$cur" | grep -q 'SONAME.*\[librocm_smi64\.so\.7\]' || { echo "$cur: SONAME is not librocm_smi64.so.7"; fail=1; }
readelf -d "$old" | grep -q 'SONAME.*\[librocm_smi64\.so\.5\]' || { echo "$old: SONAME is not librocm_smi64.so.5"; fail=1; }
newer=$(syms "$old" | grep -E 'partition|activity_metric|revision_get')
if [ -n "$newer" ]; then
  echo "the old build exports: $newer"
  fail=1
fi
for f in rsmi_init rsmi_shut_down rsmi_num_monitor_devices rsmi_dev_pci_id_get rsmi_dev_gpu_clk_freq_get \
         rsmi_dev_memory_total_get rsmi_topo_get_link_type; do
  syms "$old" | grep -qx "$f" || { echo "the old build lacks $f"; fail=1; }
done
for f in rsmi_dev_compute_partition_get rsmi_dev_memory_partition_get rsmi_dev_activity_metric_get rsmi_dev_revision_get; do
  syms "$cur" | grep -qx "$f" || { echo "the current build lacks $f"; fail=1; }
done
echo "current: $(syms "$cur" | wc -l) entry points; old: $(syms "$old" | wc -l)"
exit $fail
