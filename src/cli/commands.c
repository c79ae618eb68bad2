/* SPDX-License-Identifier: MIT */
/* The table of axl's commands: each one's function (cmd_<name>.c), which global options
 * mean something to it, which of the shared options it takes, and the help text
 * `axl help COMMAND` (and `axl COMMAND --help`) prints. axl version and axl help live
 * here too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The overview `axl help` and `axl --help` print. */
void cli_usage(FILE *f)
{
	fprintf(f,
		"usage: axl [global options] <command> [options]\n"
		"\n"
		"commands:\n"
		"  list            the accelerators of this node, one line each\n"
		"  show ID         one device in full (ID: nvidia:0, a UUID or a PCI address)\n"
		"  topo            the best path between every pair of accelerators and to\n"
		"                  every RDMA NIC, as a matrix (like nvidia-smi topo -m)\n"
		"  capture         save what axl reads on this node (and the vendor libraries'\n"
		"                  answers) to one file, to replay elsewhere with --sysroot FILE\n"
		"  metrics [ID]    what every device (or one) is doing now: utilisation, memory,\n"
		"                  power, temperatures, clocks, PCIe, ECC, and its processes\n"
		"  serve           serve live metrics over HTTP for Prometheus: /metrics (text\n"
		"                  format 0.0.4), /healthz, /inventory (docs/metrics.md)\n"
		"  top             a live view of every device (bars, history) and its processes,\n"
		"                  like nvtop; keys: s sort, r reverse, j/k select, d filter,\n"
		"                  +/- interval, p pause, h help, q quit\n"
		"  cdi generate    Container Device Interface specs for this node's accelerators\n"
		"                  (one per kind: nvidia.com/gpu, amd.com/gpu, ...; docs/cdi.md)\n"
		"  cdi list        the fully qualified CDI device names (axl.dev/nvidia-gpu=0)\n"
		"  labels          Kubernetes node labels as a Node Feature Discovery feature file\n"
		"                  (count, product, memory, architecture, precisions, partitioning;\n"
		"                  docs/labels.md); --watch keeps the file current\n"
		"  agent           serve metrics and keep the labels file and the CDI specs current,\n"
		"                  in one process: what a DaemonSet or systemd unit runs\n"
		"                  (docs/deploy.md)\n"
		"  limit set ID --memory SIZE --compute PCT\n"
		"                  record a device's limits for workloads (SIZE: bytes or 16GiB,\n"
		"                  512M, 8GB; PCT: 1..100); either option may be left out\n"
		"  limit clear ID  forget them (succeeds when there are none)\n"
		"  limit list      the recorded limits (--json for a document)\n"
		"  limit env ID[,ID...]  the environment a workload on these devices gets\n"
		"                  (AXL_LIMIT_*, and HAMi-core's CUDA_DEVICE_* for NVIDIA);\n"
		"                  docs/limits.md\n"
		"  partition list|create DEV PROFILE|destroy ID...|cleanup|profiles DEV|mode DEV KIND MODE --yes\n"
		"                  MIG instances and AMD partition modes (docs/partitions.md)\n"
		"  plan MODEL|SIZE [--params N] [--quant Q|auto] [--ctx N] [--batch N] [--kv-dtype D]\n"
		"       [--devices LIST] [--node FILE]... [--here] [--network-gbps X] [--engine E]\n"
		"       [--memory-fraction F] [--objective O] [--price-device-hour P | --price-node-hour P]\n"
		"                  will a model (catalog name, config.json, safetensors, GGUF) fit\n"
		"                  on this node, or on the nodes whose axl list --json are the FILEs\n"
		"                  (--here: and this node too); the split and the expected speed\n"
		"                  (docs/plan.md)\n"
		"  plan --list     the built-in model catalog\n"
		"  bench copy [ID...] [--backend B] [--size BYTES] [--iterations N] [--pageable]\n"
		"                  copy bandwidth host->device, device->host, both at once, within\n"
		"                  and between devices, beside each link's theoretical figure, with\n"
		"                  the bytes verified (like nvbandwidth; docs/compute.md)\n"
		"  version         the version of axl and libaxl (also --version, -V)\n"
		"  help [COMMAND]  this text, or one command's usage and options\n"
		"\n"
		"options (the global ones, --sysroot, --sim, --backends, --env, --json, --compact and\n"
		"-v, may come before or after the command):\n"
		"  --json          print the JSON document (schema axl.inventory) instead of a table\n"
		"  --compact       JSON on one line\n"
		"  --all           also the host CPU and every PCI function considered\n"
		"  --timing        time spent per discovery stage (with --json: a \"timing\" object)\n"
		"  --sysroot PATH  read another node: a capture file (.tar.gz, .tar) or a folder\n"
		"  --sim FILE      a simulated node: devices of the device database named by an\n"
		"                  axl.sim JSON spec (docs/sim.md); never touches the hardware\n"
		"  -o, --output FILE  (capture) where to write it; axl-capture-HOSTNAME.tar.gz\n"
		"                  (cdi generate) a directory: one file per kind, axl-KIND.json\n"
		"                  (labels) write the feature file there; default: standard output.\n"
		"                  NFD reads /etc/kubernetes/node-feature-discovery/features.d/\n"
		"                  Every file is replaced atomically (a dot-file renamed into\n"
		"                  place); -o - is standard output\n"
		"  --format F      (cdi generate) json (default) or yaml\n"
		"  --watch         (labels, cdi generate) keep the output current: rediscover\n"
		"                  every --interval SECONDS (default 60) and when a device node\n"
		"                  appears or goes, rewrite only when the content changed\n"
		"  --labels-file PATH, --cdi-dir DIR, --cdi-format F  (agent) what it keeps current\n"
		"  --expiry WHEN   (labels) '# +expiry-time=': a duration from now (90s, 30m, 12h,\n"
		"                  7d, 1h30m) or an RFC 3339 time (2030-01-01T00:00:00Z)\n"
		"  --prefix DOMAIN (labels) the labels' prefix (default axl.dev; '' for none, which\n"
		"                  NFD turns into feature.node.kubernetes.io)\n"
		"  --gfd           (labels) also the nvidia.com/* names NVIDIA's GPU Feature\n"
		"                  Discovery uses (gpu.product, gpu.count, gpu.memory, ...)\n"
		"  --backends LIST use only these backends (\"nvidia,amdgpu\") or not these (\"-nvidia\")\n"
		"  --env NAME=VALUE  judge visibility as if the environment held only these\n"
		"                  visibility variables (CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, ...);\n"
		"                  repeatable; applies under --sysroot too\n"
		"  --interval MS   (metrics, top) sample every MS milliseconds; with --json, one JSON\n"
		"                  document per line; top: default 1000\n"
		"                  (serve) sample at most every MS milliseconds (default 100);\n"
		"                  scrapes in between share the last sample\n"
		"                  (labels --watch, cdi generate --watch, agent) SECONDS between\n"
		"                  rediscoveries (default 60)\n"
		"  --count N       (metrics, top) stop after N samples (default: 1, or forever with\n"
		"                  --interval)\n"
		"  --no-processes  (metrics, top) do not list processes (skips the /proc sweep)\n"
		"  --batch         (top) print N (--count, default 1) frames as plain text of\n"
		"                  COLUMNS x LINES (default 80x24) instead of the live screen;\n"
		"                  also when standard input or output is not a terminal\n"
		"  --listen ADDR:PORT  (serve, agent) where to listen: 127.0.0.1:9400 by default,\n"
		"                  0.0.0.0:9400 for every IPv4 address, [::1]:9400 for IPv6\n"
		"  --dcgm          (serve) also dcgm-exporter's DCGM_FI_* names, for its dashboards\n"
		"  --processes     (serve) also per-process series (off by default: one series\n"
		"                  per process and device)\n"
		"  -v, --verbose   log diagnostics to standard error\n"
		"  -h, --help      this text; after a command, that command's (= axl help COMMAND)\n"
		"  -V, --version   the version (= axl version)\n"
		"\n"
		"environment: AXL_SYSROOT, AXL_SIM, AXL_BACKENDS, AXL_PCI_IDS (options win); the visibility\n"
		"variables (docs/visibility.md) on the live system; TMPDIR is where a capture\n"
		"given as sysroot is unpacked while axl runs. AXL_STATE_DIR: where axl limit keeps\n"
		"its records (default /run/axl for root, else $XDG_RUNTIME_DIR/axl or /tmp/axl-UID;\n"
		"under --sysroot only when given). AXL_PCI_LIBRARY, AXL_ZLIB_LIBRARY, AXL_MHD_LIBRARY,\n"
		"AXL_CURSES_LIBRARY: load that file instead of libpci.so.3 (pci.ids names), libz.so.1\n"
		"(capture files), libmicrohttpd.so.12 (serve) or libncursesw.so.6 (top), which axl\n"
		"loads only when it needs them.\n");
}

#define NODE_OPTS                                                                                  \
	"  --sysroot PATH  read another node: a capture file (.tar.gz, .tar) or a folder\n"            \
	"  --sim FILE      a simulated node (an axl.sim spec, docs/sim.md)\n"                        \
	"  --backends LIST use only these backends (\"nvidia,amdgpu\") or not these (\"-nvidia\")\n"     \
	"  --env NAME=VALUE  judge visibility as if the environment held only these visibility\n"     \
	"                  variables (repeatable)\n"
#define DRIVER_ROOT_OPTS                                                                           \
	"  --driver-root DIR  where the vendor's user-space files are looked for (the host's\n"      \
	"                  root mounted at /host in a container; default / or $AXL_DRIVER_ROOT):\n"  \
	"                  links resolve inside it; NVML, ROCm SMI and Level Zero load from it\n"   \
	"  --driver-root-host PATH  what DIR is on the host (default /: the paths inside DIR\n"     \
	"                  are the host's; /run/nvidia/driver for the GPU Operator's driver\n"     \
	"                  container; $AXL_DRIVER_ROOT_HOST)\n"
#define JSON_OPTS                                                                                  \
	"  --json          the JSON document instead of text\n"                                       \
	"  --compact       JSON on one line (implies --json)\n"

static const struct cli_command commands[] = {
	{"list", cmd_list, CLI_G_NODE | CLI_G_JSON, "atyWMQUHNK",
	 "usage: axl list [--all] [--timing] [--json [--compact]]\n"
	 "                [--family F] [--vendor V] [--min-memory SIZE] [--precision P]\n"
	 "                [--visible | --hidden] [--numa N] [--best memory|bandwidth|compute]\n"
	 "\n"
	 "The accelerators of this node, one line each; partitions that exist now follow their\n"
	 "device, indented; then their number and total memory. --json prints the axl.inventory\n"
	 "document (schema/axl-inventory.schema.json); with a filter or --best it holds the\n"
	 "devices that match and a \"selection\" object (the filter, the rank, the total).\n"
	 "\n"
	 "  --all           also the host CPU and every PCI function considered, and why\n"
	 "  --timing        time spent per discovery stage (with --json: a \"timing\" object)\n"
	 "  --family F      only devices of family F: gpu, npu, tpu, asic, fpga, cpu (with --all)\n"
	 "  --vendor V      only devices of vendor V (\"NVIDIA\") or id prefix V (\"nvidia\")\n"
	 "  --min-memory SIZE  only devices with at least SIZE of memory (\"40GiB\", \"80GB\")\n"
	 "  --precision P   only devices that run format P natively: fp64, fp32, tf32, bf16,\n"
	 "                  fp16, fp8, int8, fp6, fp4, int4\n"
	 "  --visible       only devices this process may use (--hidden: only the others)\n"
	 "  --numa N        only devices on NUMA node N\n"
	 "  --best R        the one matching device ranked first by R: memory (bytes),\n"
	 "                  bandwidth (memory GB/s) or compute (dense BF16/FP16/FP32 TFLOPS)\n" JSON_OPTS
		 NODE_OPTS},
	{"show", cmd_show, CLI_G_NODE | CLI_G_JSON, "a",
	 "usage: axl show ID [--json [--compact]]\n"
	 "\n"
	 "One device in full, every fact with where it came from. ID: an axl id (nvidia:0,\n"
	 "nvidia:0/mig1.0), a UUID or a PCI address.\n"
	 "\n" JSON_OPTS NODE_OPTS},
	{"topo", cmd_topo, CLI_G_NODE | CLI_G_JSON, "at",
	 "usage: axl topo [--json [--compact]]\n"
	 "\n"
	 "The best path between every pair of accelerators and to every RDMA NIC, as a matrix\n"
	 "like nvidia-smi topo -m, for any vendor. --json prints the inventory document, whose\n"
	 "links hold the same paths.\n"
	 "\n" JSON_OPTS NODE_OPTS},
	{"capture", cmd_capture, CLI_G_SYSROOT, "o",
	 "usage: axl capture [-o FILE|-]\n"
	 "\n"
	 "Save what axl reads on this node, and the vendor libraries' answers, to one file;\n"
	 "replay it anywhere with axl --sysroot FILE (docs/capture.md). It holds the node's host\n"
	 "name and serial numbers.\n"
	 "\n"
	 "  -o, --output FILE  where to write it (default axl-capture-HOSTNAME.tar.gz),\n"
	 "                  atomically; - : standard output (not a terminal)\n"
	 "  --sysroot PATH  capture another node's tree (a folder or a capture) again\n"
	 "  --backends LIST use only these backends\n"},
	{"metrics", cmd_metrics, CLI_G_NODE | CLI_G_JSON, "ainP",
	 "usage: axl metrics [ID] [--interval MS] [--count N] [--no-processes] [--json [--compact]]\n"
	 "\n"
	 "What every device (or the one named) is doing now: utilisation, memory, power,\n"
	 "temperatures, clocks, PCIe, ECC, throttling, and its processes (docs/metrics.md).\n"
	 "\n"
	 "  --interval MS   sample every MS milliseconds; with --json, one document per line\n"
	 "  --count N       stop after N samples (default 1, or forever with --interval)\n"
	 "  --no-processes  do not list processes (skips the /proc sweep)\n" JSON_OPTS NODE_OPTS},
	{"serve", cmd_serve, CLI_G_NODE, "iLDp",
	 "usage: axl serve [--listen ADDR:PORT] [--interval MS] [--dcgm] [--processes]\n"
	 "\n"
	 "Serve live metrics over HTTP for Prometheus: /metrics (text format 0.0.4), /healthz,\n"
	 "/inventory (docs/metrics.md).\n"
	 "\n"
	 "  --listen ADDR:PORT  127.0.0.1:9400 by default; 0.0.0.0:9400, [::1]:9400\n"
	 "  --interval MS   sample at most every MS milliseconds (default 100)\n"
	 "  --dcgm          also dcgm-exporter's DCGM_FI_* names\n"
	 "  --processes     also per-process series\n" NODE_OPTS},
	{"top", cmd_top, CLI_G_NODE, "ainPB",
	 "usage: axl top [--interval MS] [--count N] [--no-processes] [--batch]\n"
	 "\n"
	 "A live view of every device and its processes, like nvtop. Keys: s sort, r reverse,\n"
	 "j/k select, d filter, +/- interval, p pause, h help, q quit.\n"
	 "\n"
	 "  --interval MS   refresh every MS milliseconds (default 1000)\n"
	 "  --count N       stop after N frames\n"
	 "  --no-processes  no process list\n"
	 "  --batch         plain-text frames of COLUMNS x LINES (also when not on a terminal)\n" NODE_OPTS},
	{"cdi", cmd_cdi, CLI_G_NODE | CLI_G_JSON, "oFwiTY",
	 "usage: axl cdi generate [-o DIR|-] [--format json|yaml] [--watch [--interval SECONDS]]\n"
	 "                        [--driver-root DIR [--driver-root-host PATH]]\n"
	 "       axl cdi list [--json]\n"
	 "\n"
	 "Container Device Interface specs for this node's accelerators, one per kind\n"
	 "(axl.dev/nvidia-gpu, axl.dev/amd-gpu, ...: never the vendors' own kinds, which\n"
	 "their toolkits write beside), and the fully qualified device names (docs/cdi.md).\n"
	 "\n"
	 "  -o, --output DIR  write one file per kind there, axl-CLASS.json (or .yaml), each\n"
	 "                  replaced atomically and only when its content changed;\n"
	 "                  - (or none): standard output\n"
	 DRIVER_ROOT_OPTS
	 "  --format F      json (default) or yaml\n"
	 "  --watch         keep DIR current: rediscover every --interval and when a device\n"
	 "                  node appears or goes; rewrite only what changed; remove the spec\n"
	 "                  of a kind that is gone; SIGTERM or SIGINT ends it\n"
	 "  --interval SECONDS  (--watch) the period (default 60)\n"
	 "  --json          (list) the names as a JSON array\n" NODE_OPTS},
	{"labels", cmd_labels, CLI_G_NODE, "oXRGwi",
	 "usage: axl labels [-o FILE|-] [--expiry WHEN] [--prefix DOMAIN] [--gfd] [--watch [--interval SECONDS]]\n"
	 "\n"
	 "Kubernetes node labels as a Node Feature Discovery feature file (docs/labels.md).\n"
	 "\n"
	 "  -o, --output FILE  write it there atomically, only when its content changed (NFD\n"
	 "                  reads /etc/kubernetes/node-feature-discovery/features.d/);\n"
	 "                  - (or none): standard output\n"
	 "  --expiry WHEN   a duration from now (90s, 12h, 7d) or an RFC 3339 time; with\n"
	 "                  --watch a duration is renewed when half of it has passed\n"
	 "  --prefix DOMAIN the labels' prefix (default axl.dev)\n"
	 "  --gfd           also the nvidia.com/* names of NVIDIA's GPU Feature Discovery\n"
	 "  --watch         keep FILE current: rediscover every --interval and when a device\n"
	 "                  node appears or goes; rewrite only when the labels changed;\n"
	 "                  SIGTERM or SIGINT ends it\n"
	 "  --interval SECONDS  (--watch) the period (default 60)\n" NODE_OPTS},
	{"agent", cmd_agent, CLI_G_NODE, "iLDpXRGlzfTY",
	 "usage: axl agent [--listen ADDR:PORT] [--labels-file PATH] [--cdi-dir DIR]\n"
	 "                 [--cdi-format json|yaml] [--interval SECONDS] [--dcgm] [--processes]\n"
	 "                 [--expiry WHEN] [--prefix DOMAIN] [--gfd]\n"
	 "\n"
	 "What a node of a fleet runs (docs/deploy.md), in one process: serve /metrics,\n"
	 "/healthz and /inventory as axl serve does, and keep the Node Feature Discovery\n"
	 "feature file and the CDI specs current as axl labels --watch and axl cdi generate\n"
	 "--watch do. /healthz answers 503 until both were written once, then 200.\n"
	 "SIGTERM or SIGINT ends it (docs/metrics.md).\n"
	 "\n"
	 "  --listen ADDR:PORT  127.0.0.1:9400 by default; 0.0.0.0:9400, [::1]:9400\n"
	 "  --labels-file PATH  the feature file to keep current (as axl labels -o PATH)\n"
	 "  --cdi-dir DIR   the directory of CDI specs to keep current (as axl cdi generate -o DIR)\n"
	 "  --cdi-format F  json (default) or yaml\n"
	 "  --interval SECONDS  rediscover this often (default 60), and when a device node\n"
	 "                  appears or goes\n"
	 "  --dcgm          also dcgm-exporter's DCGM_FI_* names\n"
	 "  --processes     also per-process series\n"
	 "  --expiry WHEN   (labels) a duration, renewed when half of it has passed, or an\n"
	 "                  RFC 3339 time\n"
	 "  --prefix DOMAIN (labels) the labels' prefix (default axl.dev)\n"
	 "  --gfd           (labels) also the nvidia.com/* names of GPU Feature Discovery\n" DRIVER_ROOT_OPTS
	 NODE_OPTS},
	{"device-plugin", cmd_device_plugin, CLI_G_NODE, NULL,
	 "usage: axl device-plugin [--kubelet-dir DIR] [--mig-strategy none|single|mixed]\n"
	 "                         [--shares N] [--limiter PATH] [--interval SECONDS]\n"
	 "                         [--register-timeout SECONDS] [--device-list-strategy cdi-cri|mounts]\n"
	 "                         [--health-checks all|none] [--health-recovery SECONDS]\n"
	 "                         [--driver-root DIR [--driver-root-host PATH]]\n"
	 "\n"
	 "The kubelet device plugin (API v1beta1) for every accelerator of the node\n"
	 "(docs/kubernetes.md): one service per resource name, under the vendors' own names\n"
	 "(nvidia.com/gpu, amd.com/gpu, gpu.intel.com/i915, habana.ai/gaudi, ...), registered\n"
	 "with the kubelet and again when it restarts. Devices are listed with their NUMA\n"
	 "node and health, followed as device nodes come and go; Allocate hands out the\n"
	 "devices' CDI names (as axl cdi list prints them), device nodes and visibility\n"
	 "variables; GetPreferredAllocation keeps a request on one NVLink/xGMI island, then\n"
	 "one NUMA node. SIGTERM or SIGINT ends it and removes its sockets.\n"
	 "\n"
	 "  --kubelet-dir DIR   the kubelet's socket directory (default\n"
	 "                      /var/lib/kubelet/device-plugins)\n"
	 "  --mig-strategy S    none (default): MIG GPUs as whole GPUs; single: every MIG\n"
	 "                      device (all of one profile) as nvidia.com/gpu; mixed: each\n"
	 "                      profile as nvidia.com/mig-<profile> (1g.10gb+me: mig-1g.10gb.me).\n"
	 "                      AMD GPUs in CPX/DPX/QPX mode: one device per partition, as\n"
	 "                      amd.com/gpu (none, single: all GPUs in one mode) or under\n"
	 "                      their modes (mixed: amd.com/cpx_nps4). Also spelt as ROCm's\n"
	 "                      plugin spells it: --resource-naming-strategy,\n"
	 "                      -resource_naming_strategy\n"
	 "  --shares N          advertise each device N times (IDs <id>::<k>), each share held\n"
	 "                      to 1/N of the memory and compute by the preloaded limiter\n"
	 "  --limiter PATH      the limiter to mount (default: beside axl, or the installed one);\n"
	 "                      the ld.so.preload beside it is mounted at /etc/ld.so.preload\n"
	 "  --device-list-strategy S  cdi-cri (default): the devices' CDI names; mounts: no CDI\n"
	 "                      (containerd < 1.7, CRI-O without CDI), the spec's device nodes,\n"
	 "                      environment and library mounts in the answer itself\n"
	 "  --interval SECONDS  rediscover this often (default 60), and when device nodes change\n"
	 "  --register-timeout SECONDS  how long one Register call may take (default 10)\n"
	 "  --health-checks C   all (default): a device with a critical error its vendor reports\n"
	 "                      (NVML's Xids but an application's, double-bit ECC; amdgpu's RAS\n"
	 "                      uncorrectable errors) is Unhealthy; none: only a device that is\n"
	 "                      gone. DP_DISABLE_HEALTHCHECKS and DP_ENABLE_HEALTHCHECKS are read\n"
	 "                      as NVIDIA's plugin reads them\n"
	 "  --health-recovery SECONDS  Healthy again this long after its last error (default\n"
	 "                      300; 0: not until the plugin restarts)\n" DRIVER_ROOT_OPTS
	 NODE_OPTS},
	{"limit", cmd_limit, CLI_G_NODE | CLI_G_JSON, NULL,
	 "usage: axl limit set ID [--memory SIZE] [--compute PCT]\n"
	 "       axl limit clear ID\n"
	 "       axl limit list [--json]\n"
	 "       axl limit env ID[,ID...]\n"
	 "\n"
	 "Record a device's limits for workloads in the state directory, forget them, list\n"
	 "them, or print the environment a workload on these devices gets (AXL_LIMIT_*, and\n"
	 "HAMi-core's CUDA_DEVICE_* for NVIDIA); docs/limits.md. SIZE: bytes or 16GiB, 512M,\n"
	 "8GB; PCT: 1..100.\n"
	 "\n" JSON_OPTS NODE_OPTS},
	{"partition", cmd_partition, CLI_G_NODE | CLI_G_JSON, NULL,
	 "usage: axl partition list [--json]\n"
	 "       axl partition create DEVICE PROFILE [--json]\n"
	 "       axl partition destroy [--device DEV] ID...\n"
	 "       axl partition cleanup\n"
	 "       axl partition profiles DEVICE [--json]\n"
	 "       axl partition mode DEVICE compute|memory MODE --yes\n"
	 "\n"
	 "MIG instances and AMD partition modes (docs/partitions.md).\n"
	 "\n" JSON_OPTS NODE_OPTS},
	{"plan", cmd_plan, CLI_G_NODE | CLI_G_JSON, NULL,
	 "usage: axl plan MODEL|SIZE [--params N] [--quant Q|auto] [--ctx N] [--batch N] [--kv-dtype D]\n"
	 "                [--devices LIST] [--node FILE]... [--here] [--network-gbps X]\n"
	 "                [--engine E] [--memory-fraction F] [--objective O]\n"
	 "                [--price-device-hour P | --price-node-hour P] [--json]\n"
	 "       axl plan --list [--json]\n"
	 "\n"
	 "Will a model (a catalog name, a config.json, safetensors or GGUF file, or a bare\n"
	 "size such as 7B) fit on this node, or on the nodes whose axl list --json are the\n"
	 "FILEs; how to split it and how fast it will run (docs/plan.md). --list prints the\n"
	 "built-in model catalog.\n"
	 "\n"
	 "  --params N      a bare size in parameters (7e9), the same as naming 7B\n"
	 "  --quant Q       bf16, fp16, fp8, int8, int4, awq, gptq, mxfp4, q8_0, q4_k_m, ...;\n"
	 "                  auto: the best-quality format the devices run natively that fits\n"
	 "  --ctx N         context tokens per sequence\n"
	 "  --batch N       sequences decoded together\n"
	 "  --kv-dtype D    the KV cache's type (bf16, fp8, ...)\n"
	 "  --devices LIST  only these devices (nvidia:0,nvidia:1)\n"
	 "  --node FILE     plan on that node (repeatable); --here: and on this one too\n"
	 "  --network-gbps X  GB/s per direction between nodes\n"
	 "  --engine E      the serving engine the estimates are calibrated for: vllm (default),\n"
	 "                  sglang, trt-llm, llama.cpp, pytorch\n"
	 "  --memory-fraction F  the share of each device's memory the engine gives the model,\n"
	 "                  0 < F <= 1 (default: the engine's, vllm 0.90)\n"
	 "  --objective O   devices (default: the fewest devices that fit, then the fastest),\n"
	 "                  latency (one sequence's decode), throughput (the batch's decode),\n"
	 "                  cost (per million tokens: needs a price)\n"
	 "  --price-device-hour P, --price-node-hour P\n"
	 "                  a price per hour, for the cost per million tokens (else the\n"
	 "                  node file's, or the price table's for the node's instance type)\n"
	 "  --devices cpu   plan on the host: its memory and memory bandwidth\n" JSON_OPTS NODE_OPTS
	 "                  (the node options describe this node: not with --node unless --here)\n"},
	{"bench", cmd_bench, CLI_G_NODE | CLI_G_JSON, NULL,
	 "usage: axl bench copy [ID...] [--backend B] [--size BYTES] [--iterations N] [--pageable] [--json]\n"
	 "\n"
	 "Measure copies the way nvbandwidth does, on any compute backend (docs/compute.md):\n"
	 "host -> device, device -> host, both at once, within each device, and between\n"
	 "every ordered pair of devices (peer to peer, or staged through pinned host memory).\n"
	 "Each figure is the median of N timed copies after 2 warm-up copies, in GB/s (10^9\n"
	 "bytes/s), beside the link's theoretical figure from the inventory (PCIe generation x\n"
	 "width, NVLink, XGMI, memory bandwidth / 2) and the percentage reached. The bytes of\n"
	 "every test are checked at the end. Exit status 1 when a copy fails or its bytes differ.\n"
	 "\n"
	 "  ID              a device (axl list), \"host\" for the host CPU, or \"host/BACKEND\"\n"
	 "                  for a runtime's device emulated on it (with --backend); default:\n"
	 "                  every device a compute backend drives, else the host CPU\n"
	 "  --backend B     cpu, cuda, hip, level-zero, opencl or vulkan (default: each\n"
	 "                  device's own by priority; also AXL_COMPUTE)\n"
	 "  --size BYTES    bytes per copy (default 64MiB; 256MiB, 1G, 4096)\n"
	 "  --iterations N  timed copies per figure (default 10)\n"
	 "  --pageable      ordinary host memory instead of pinned\n"
	 "\n" JSON_OPTS NODE_OPTS},
	{"version", cmd_version, 0, "",
	 "usage: axl version   (also axl --version, axl -V)\n"
	 "\n"
	 "The version of axl and of the libaxl it runs with.\n"},
	{"help", cmd_help, 0, "",
	 "usage: axl help [COMMAND]\n"
	 "\n"
	 "What axl does, or what one command does and the options it takes.\n"},
};

/* axl device-plugin's option for partitions, named as NVIDIA's plugin names it */
const char cli_opt_partition_strategy[] = "--mig-strategy";
/* the same setting as ROCm's plugin names it (its Go flag: -resource_naming_strategy, with
 * one dash or two), and in this command's own spelling */
const char *const cli_opt_partition_strategy_aliases[] = {"--resource-naming-strategy", "--resource_naming_strategy",
							  "-resource_naming_strategy", NULL};

const struct cli_command *cli_command_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof commands / sizeof *commands; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

void cli_commands_taking(int opt, char *out, size_t cap)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (commands[i].options && strchr(commands[i].options, opt) && len + 32 < cap)
			len += (size_t)snprintf(out + len, cap - len, "%saxl %s", len ? ", " : "", commands[i].name);
}

void cli_command_help(FILE *f, const struct cli_command *c)
{
	fputs(c->help, f);
	if (c->globals)
		fputs("  -v, --verbose   log diagnostics to standard error\n", f);
}

const char *cli_global_refusal(const struct cli_command *c, const struct opts *o)
{
	if (!(c->globals & CLI_G_JSON) && (o->json || o->compact))
		return o->compact ? "--compact" : "--json";
	if (!(c->globals & (CLI_G_NODE | CLI_G_SYSROOT)) && o->sysroot)
		return "--sysroot";
	if (!(c->globals & CLI_G_NODE) && o->sim)
		return "--sim";
	if (!(c->globals & (CLI_G_NODE | CLI_G_SYSROOT)) && o->backends)
		return "--backends";
	if (!(c->globals & CLI_G_NODE) && o->nenv)
		return "--env";
	return NULL;
}

int cmd_version(struct opts *o, int argc, char **argv)
{
	(void)o;
	if (argc) {
		fprintf(stderr, "axl: version takes no argument ('%s')\n", argv[0]);
		return EXIT_USAGE;
	}
	printf("axl %s (libaxl %s)\n", AXL_VERSION_STRING, axl_version());
	return 0;
}

int cmd_help(struct opts *o, int argc, char **argv)
{
	(void)o;
	if (argc > 1) {
		fprintf(stderr, "axl: help takes one command at most\n");
		return EXIT_USAGE;
	}
	const struct cli_command *t = argc ? cli_command_find(argv[0]) : NULL;
	if (argc && !t) {
		fprintf(stderr, "axl: help: no command '%s'\n", argv[0]);
		cli_usage(stderr);
		return EXIT_USAGE;
	}
	if (t)
		cli_command_help(stdout, t);
	else
		cli_usage(stdout);
	return 0;
}

/* ---- axl topo's legend: what the matrix's cells mean (help text, in cmd_topo.c's order) */
const char cli_topo_legend_paths[] =
	"\nLegend:\n\n"
	"  X    = Self\n"
	"  SYS  = PCIe and the interconnect between NUMA nodes (UPI, Infinity Fabric)\n"
	"  NODE = PCIe and the interconnect between the host bridges of one NUMA node\n"
	"  PHB  = PCIe and a PCIe host bridge (typically the CPU)\n"
	"  PXB  = PCIe through several PCIe switches, no host bridge\n"
	"  PIX  = PCIe through a single PCIe switch\n"
	"  NV#  = a bonded set of # NVLinks (direct, or into the NVSwitch fabric)\n";
/* followed by "<links>, <GB/s> GB/s per direction" when every switched pair says the same */
const char cli_topo_legend_switch_pairs[] = "  NVSwitch fabric: every pair NV";
const char cli_topo_legend_switch_unknown[] = "  NVS  = the NVSwitch fabric (link count not known)\n";
const char cli_topo_legend_fabrics[] = "  XGMI = AMD Infinity Fabric (one XGMI hive)\n"
				       "  NL#  = # AWS NeuronLink ports\n";
const char cli_topo_legend_xelink[] = "  XL#  = a bonded set of # Intel Xe Links\n";
const char cli_topo_legend_ici[] = "  ICI  = Google TPU inter-chip interconnect (one slice: a torus or mesh)\n";
const char cli_topo_legend_unknown[] = "  -    = not known\n";
