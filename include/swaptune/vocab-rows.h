/*
 * vocab-rows.h - the rows of the counter vocabulary (vocab.h says what each
 * column means). Included only by vocab.h, verdict-secondary.h (for the
 * enums), vocab-window-names.h (--metric names), src/vocab.c (for the
 * tables) and test-vocab, each defining only the views it uses: every
 * other view is empty here, and undefined again at the end.
 *
 * One ROW per quantity, keyed by where it comes from (a kernel file and the
 * kernel's key in it, or the workload), then the views it has:
 *   TRIAL(PM_x, row, ...)  one probe trial's delta or level, stored per trial
 *   TICK(SM_x, row, ...)   the sampler's value per tick (a rate or a level)
 *   TOTAL(SC_x, row, ...)  the raw cumulative counter (JSON "counters",
 *                          Prometheus _total)
 *   WINDOW(SBK_x, row, NAME, ...) a switchback figure per window (struct
 *                          sbm_kernel_def): --metric NAME (positional, so
 *                          help lines list it), the key stored
 *                          per window, the TOTAL counters it is the rate of
 *                          (host, host_plus; cgroup when --cgroup has it),
 *                          its column in the switchback report. The
 *                          WINDOW lines sit together at the end, in the
 *                          order stores and reports list them.
 *   SECONDARY(VERDICT_SEC_x, PM_y, ...) one of the verdict's secondary
 *                          costs (advisor.h): the trial metric it is,
 *                          its name in advice's JSON; together after the
 *                          WINDOW lines, in the order advice's JSON lists them.
 *   SHOWN_TICKS(list, SM_x, ...), SHOWN_TRIALS(list, PM_x, ...) what one
 *                          table, panel or summary line shows, in its
 *                          order (shown_<list>[], SHOWN_N_<list> in
 *                          vocab.h); at the very end, one line per list.
 * A new kernel counter is a ROW and the views it should have, here: the
 * sampler reads it, the probe counts it per trial (vmstat and zswap debugfs
 * rows), JSON lines, Prometheus, recordings, replay and the differences
 * table of a report carry it; --metric NAME judges a WINDOW, the verdict a
 * SECONDARY; the report, the TUI and the live table show it once their
 * SHOWN line names it. share/schema/sample.schema.json lists its JSON keys
 * and tests/fixtures/sample-basic has its kernel key: tests/unit/test-vocab.c
 * fails until both do. A WINDOW's name is in --help, so the man page is
 * made again (sh share/man/gen-man.sh; t0001 says when).
 *
 * Order matters only within a view: JSON objects list a group's keys in
 * row order. Names that are published (trial keys, JSON keys, Prometheus
 * names) are never renamed: stores, exports and dashboards hold them.
 */

/* every view not defined by the includer is empty (and undefined again at the end) */
#ifndef ROW
#define ROW(id, ...)
#define VOCAB_ROW_UNSET
#endif
#ifndef TRIAL
#define TRIAL(pm, row, ...)
#define VOCAB_TRIAL_UNSET
#endif
#ifndef TICK
#define TICK(sm, row, ...)
#define VOCAB_TICK_UNSET
#endif
#ifndef TOTAL
#define TOTAL(sc, row, ...)
#define VOCAB_TOTAL_UNSET
#endif
#ifndef WINDOW
#define WINDOW(sbk, row, ...)
#define VOCAB_WINDOW_UNSET
#endif
#ifndef SECONDARY
#define SECONDARY(sec, pm, ...)
#define VOCAB_SECONDARY_UNSET
#endif
#ifndef SHOWN_TICKS
#define SHOWN_TICKS(list, ...)
#define VOCAB_SHOWN_TICKS_UNSET
#endif
#ifndef SHOWN_TRIALS
#define SHOWN_TRIALS(list, ...)
#define VOCAB_SHOWN_TRIALS_UNSET
#endif

/* ---- the workload's own report (not kernel counters) ---- */

ROW(THROUGHPUT, .source = VSRC_WORKLOAD, .name = "throughput", .label = "throughput",
    .unit = "ops/s", .direction = METRIC_HIGHER_BETTER,
    .help = "operations per second of the measured phase")
TRIAL(PM_THROUGHPUT, THROUGHPUT, .key = "throughput_ops", .kind = METRIC_KIND_PRIMARY)

ROW(WALL_S, .source = VSRC_WORKLOAD, .name = "wall time", .label = "wall time", .unit = "s",
    .direction = METRIC_LOWER_BETTER, .help = "a command's time from fork to exit")
TRIAL(PM_WALL_S, WALL_S, .key = "wall_s", .kind = METRIC_KIND_PRIMARY)

ROW(CMD_METRIC, .source = VSRC_WORKLOAD, .name = "metric", .label = "command metric", .unit = "",
    .direction = METRIC_NEUTRAL, .help = "the number a command printed (--metric-regex, --metric)")
TRIAL(PM_CMD_METRIC, CMD_METRIC, .key = "metric", .kind = METRIC_KIND_PRIMARY)

/*
 * Per CPU second: the primary metric on a busy host (--busy-host, probe-busy.c).
 * A trial that gets a share of a CPU takes longer in wall time for reasons
 * that are not the setting's; the CPU the trial itself spent (user + system,
 * which on zswap includes decompressing, reading ahead and reclaiming in the
 * faulting task) is what the setting changes.
 */
ROW(OPS_PER_CPU_S, .source = VSRC_WORKLOAD, .name = "throughput per CPU second",
    .label = "throughput per CPU second", .unit = "ops/CPU-s", .direction = METRIC_HIGHER_BETTER,
    .help = "operations of the measured phase per second of its own CPU time (user + system)")
TRIAL(PM_OPS_PER_CPU_S, OPS_PER_CPU_S, .key = "ops_per_cpu_s", .kind = METRIC_KIND_PRIMARY,
      .head = "ops/cpu-s")

ROW(CMD_CPU_S, .source = VSRC_WORKLOAD, .name = "command CPU time", .label = "command CPU time",
    .unit = "s", .direction = METRIC_LOWER_BETTER,
    .help = "a command's user + system CPU time, its children included (wait4)")
TRIAL(PM_CMD_CPU_S, CMD_CPU_S, .key = "cpu_s", .kind = METRIC_KIND_PRIMARY)

ROW(ELAPSED_S, .source = VSRC_WORKLOAD, .name = "measured phase", .label = "measured phase",
    .unit = "s", .direction = METRIC_LOWER_BETTER, .help = "time of the measured phase")
TRIAL(PM_ELAPSED_S, ELAPSED_S, .key = "elapsed_s", .kind = METRIC_KIND_GAUGE)

ROW(SETUP_S, .source = VSRC_WORKLOAD, .name = "setup", .label = "workload setup", .unit = "s",
    .direction = METRIC_NEUTRAL, .help = "time the workload took to set up before measuring")
TRIAL(PM_SETUP_S, SETUP_S, .key = "setup_s", .kind = METRIC_KIND_GAUGE)

ROW(OPS, .source = VSRC_WORKLOAD, .name = "ops", .label = "operations", .unit = "ops",
    .direction = METRIC_NEUTRAL, .help = "operations of the measured phase")
TRIAL(PM_OPS, OPS, .key = "ops", .kind = METRIC_KIND_GAUGE)

ROW(LAT_P50_NS, .source = VSRC_WORKLOAD, .name = "latency p50", .label = "access latency p50",
    .unit = "ns", .direction = METRIC_LOWER_BETTER, .help = "median latency of one access")
TRIAL(PM_LAT_P50_NS, LAT_P50_NS, .key = "lat_p50_ns", .kind = METRIC_KIND_LATENCY)

ROW(LAT_P99_NS, .source = VSRC_WORKLOAD, .name = "latency p99", .label = "access latency p99",
    .unit = "ns", .direction = METRIC_LOWER_BETTER, .help = "99th percentile latency of one access")
TRIAL(PM_LAT_P99_NS, LAT_P99_NS, .key = "lat_p99_ns", .kind = METRIC_KIND_LATENCY)

ROW(LAT_P999_NS, .source = VSRC_WORKLOAD, .name = "latency p99.9", .label = "access latency p99.9",
    .unit = "ns", .direction = METRIC_LOWER_BETTER, .help = "99.9th percentile latency of one access")
TRIAL(PM_LAT_P999_NS, LAT_P999_NS, .key = "lat_p999_ns", .kind = METRIC_KIND_LATENCY)

/* ---- /proc/vmstat ---- */

ROW(PSWPIN, .source = VSRC_VMSTAT, .keys = { "pswpin" }, .name = "pswpin",
    .label = "swap-ins from device", .unit = "pages", .direction = METRIC_LOWER_BETTER,
    .help = "pages swapped in from a block device (vmstat pswpin)")
TRIAL(PM_PSWPIN, PSWPIN, .key = "pswpin", .kind = METRIC_KIND_COUNTER)
TICK(SM_PSWPIN, PSWPIN, .group = SG_VMSTAT, .key = "pswpin_pages_per_s", .unit = "pages/s")
TOTAL(SC_PSWPIN, PSWPIN, .group = SG_VMSTAT, .key = "pswpin_pages",
      .prom = "swaptune_pswpin_pages_total")

ROW(PSWPOUT, .source = VSRC_VMSTAT, .keys = { "pswpout" }, .name = "pswpout",
    .label = "swap-outs to device", .unit = "pages", .direction = METRIC_LOWER_BETTER,
    .help = "pages swapped out to a block device (vmstat pswpout)")
TRIAL(PM_PSWPOUT, PSWPOUT, .key = "pswpout", .kind = METRIC_KIND_COUNTER)
TICK(SM_PSWPOUT, PSWPOUT, .group = SG_VMSTAT, .key = "pswpout_pages_per_s", .unit = "pages/s")
TOTAL(SC_PSWPOUT, PSWPOUT, .group = SG_VMSTAT, .key = "pswpout_pages",
      .prom = "swaptune_pswpout_pages_total")

ROW(ZSWPIN, .source = VSRC_VMSTAT, .keys = { "zswpin" }, .name = "zswpin", .label = "zswap loads",
    .unit = "pages", .direction = METRIC_LOWER_BETTER,
    .help = "pages loaded from zswap (vmstat zswpin)")
TRIAL(PM_ZSWPIN, ZSWPIN, .key = "zswpin", .kind = METRIC_KIND_COUNTER,
      .head = "zswpin")
TICK(SM_ZSWPIN, ZSWPIN, .group = SG_VMSTAT, .key = "zswpin_pages_per_s", .unit = "pages/s",
     .head = "zsin")
TOTAL(SC_ZSWPIN, ZSWPIN, .group = SG_VMSTAT, .key = "zswpin_pages",
      .prom = "swaptune_zswpin_pages_total")

ROW(ZSWPOUT, .source = VSRC_VMSTAT, .keys = { "zswpout" }, .name = "zswpout",
    .label = "zswap stores", .unit = "pages", .direction = METRIC_LOWER_BETTER,
    .help = "pages stored into zswap (vmstat zswpout)")
TRIAL(PM_ZSWPOUT, ZSWPOUT, .key = "zswpout", .kind = METRIC_KIND_COUNTER,
      .head = "zswpout")
TICK(SM_ZSWPOUT, ZSWPOUT, .group = SG_VMSTAT, .key = "zswpout_pages_per_s", .unit = "pages/s",
     .head = "zsout")
TOTAL(SC_ZSWPOUT, ZSWPOUT, .group = SG_VMSTAT, .key = "zswpout_pages",
      .prom = "swaptune_zswpout_pages_total")

ROW(ZSWPWB, .source = VSRC_VMSTAT, .keys = { "zswpwb" }, .name = "zswap writeback",
    .label = "zswap writebacks", .unit = "pages", .direction = METRIC_LOWER_BETTER,
    .help = "pages written back from zswap to the swap device (vmstat zswpwb)")
TRIAL(PM_ZSWPWB, ZSWPWB, .key = "zswpwb", .kind = METRIC_KIND_COUNTER)
TICK(SM_ZSWPWB, ZSWPWB, .group = SG_VMSTAT, .key = "zswpwb_pages_per_s", .unit = "pages/s",
     .head = "wb")
TOTAL(SC_ZSWPWB, ZSWPWB, .group = SG_VMSTAT, .key = "zswpwb_pages",
      .prom = "swaptune_zswpwb_pages_total")

ROW(SWAP_RA, .source = VSRC_VMSTAT, .keys = { "swap_ra" }, .name = "swap_ra",
    .label = "readahead pages", .unit = "pages", .direction = METRIC_NEUTRAL,
    .help = "pages read ahead on swap-in (vmstat swap_ra)")
TRIAL(PM_SWAP_RA, SWAP_RA, .key = "swap_ra", .kind = METRIC_KIND_COUNTER, .head = "swap_ra")
TICK(SM_SWAP_RA, SWAP_RA, .group = SG_VMSTAT, .key = "swap_ra_pages_per_s", .unit = "pages/s",
     .head = "ra")
TOTAL(SC_SWAP_RA, SWAP_RA, .group = SG_VMSTAT, .key = "swap_ra_pages",
      .prom = "swaptune_swap_ra_pages_total")

ROW(SWAP_RA_HIT, .source = VSRC_VMSTAT, .keys = { "swap_ra_hit" }, .name = "swap_ra_hit",
    .label = "readahead hits", .unit = "pages", .direction = METRIC_HIGHER_BETTER,
    .help = "read-ahead swap pages that were used (vmstat swap_ra_hit)")
TRIAL(PM_SWAP_RA_HIT, SWAP_RA_HIT, .key = "swap_ra_hit", .kind = METRIC_KIND_COUNTER,
      .head = "ra_hit")
TICK(SM_SWAP_RA_HIT, SWAP_RA_HIT, .group = SG_VMSTAT, .key = "swap_ra_hit_pages_per_s",
     .unit = "pages/s")
TOTAL(SC_SWAP_RA_HIT, SWAP_RA_HIT, .group = SG_VMSTAT, .key = "swap_ra_hit_pages",
      .prom = "swaptune_swap_ra_hit_pages_total")

ROW(PGMAJFAULT, .source = VSRC_VMSTAT, .keys = { "pgmajfault" }, .name = "major faults",
    .label = "major faults (host)", .unit = "faults", .direction = METRIC_LOWER_BETTER,
    .help = "major page faults (vmstat pgmajfault)")
TRIAL(PM_PGMAJFAULT, PGMAJFAULT, .key = "pgmajfault", .kind = METRIC_KIND_COUNTER,
      .head = "majflt")
TICK(SM_PGMAJFAULT, PGMAJFAULT, .group = SG_VMSTAT, .key = "pgmajfault_per_s", .unit = "faults/s",
     .head = "majf")
TOTAL(SC_PGMAJFAULT, PGMAJFAULT, .group = SG_VMSTAT, .key = "pgmajfault",
      .prom = "swaptune_pgmajfault_total")

ROW(REFAULT_ANON, .source = VSRC_VMSTAT, .keys = { "workingset_refault_anon" },
    .name = "anon refaults", .label = "anon refaults", .unit = "pages",
    .direction = METRIC_LOWER_BETTER, .help = "anon workingset refaults (vmstat workingset_refault_anon)")
TRIAL(PM_REFAULT_ANON, REFAULT_ANON, .key = "workingset_refault_anon", .kind = METRIC_KIND_COUNTER,
      .head = "refault")
TICK(SM_REFAULT_ANON, REFAULT_ANON, .group = SG_VMSTAT, .key = "refault_anon_pages_per_s",
     .unit = "pages/s")
TOTAL(SC_REFAULT_ANON, REFAULT_ANON, .group = SG_VMSTAT, .key = "refault_anon_pages",
      .prom = "swaptune_workingset_refault_anon_pages_total")

ROW(REFAULT_FILE, .source = VSRC_VMSTAT, .keys = { "workingset_refault_file" },
    .name = "file refaults", .label = "file refaults", .unit = "pages",
    .direction = METRIC_LOWER_BETTER, .help = "file workingset refaults (vmstat workingset_refault_file)")
TRIAL(PM_REFAULT_FILE, REFAULT_FILE, .key = "workingset_refault_file", .kind = METRIC_KIND_COUNTER)
TICK(SM_REFAULT_FILE, REFAULT_FILE, .group = SG_VMSTAT, .key = "refault_file_pages_per_s",
     .unit = "pages/s")
TOTAL(SC_REFAULT_FILE, REFAULT_FILE, .group = SG_VMSTAT, .key = "refault_file_pages",
      .prom = "swaptune_workingset_refault_file_pages_total")

/* kernels before 5.8 count reclaim by who scanned, not by anon/file */
ROW(PGSCAN, .source = VSRC_VMSTAT, .keys = { "pgscan_anon", "pgscan_file" },
    .alt = { "pgscan_kswapd", "pgscan_direct" }, .name = "pages scanned",
    .label = "pages scanned", .unit = "pages", .direction = METRIC_NEUTRAL,
    .help = "pages scanned by reclaim (vmstat pgscan_anon + pgscan_file)")
TICK(SM_PGSCAN, PGSCAN, .group = SG_VMSTAT, .key = "pgscan_pages_per_s", .unit = "pages/s",
     .head = "scan")
TOTAL(SC_PGSCAN, PGSCAN, .group = SG_VMSTAT, .key = "pgscan_pages",
      .prom = "swaptune_pgscan_pages_total")

ROW(PGSTEAL, .source = VSRC_VMSTAT, .keys = { "pgsteal_anon", "pgsteal_file" },
    .name = "pages reclaimed", .label = "pages reclaimed", .unit = "pages",
    .direction = METRIC_NEUTRAL, .help = "pages reclaimed (vmstat pgsteal_anon + pgsteal_file)")
TICK(SM_PGSTEAL, PGSTEAL, .group = SG_VMSTAT, .key = "pgsteal_pages_per_s", .unit = "pages/s")
TOTAL(SC_PGSTEAL, PGSTEAL, .group = SG_VMSTAT, .key = "pgsteal_pages",
      .prom = "swaptune_pgsteal_pages_total")

/* ---- zswap debugfs (sys/kernel/debug/zswap/<key>, one file per key) ---- */

ROW(ZSWAP_STORED_PAGES, .source = VSRC_ZSWAP, .keys = { "stored_pages" }, .name = "zswap pool pages",
    .label = "zswap pool pages", .unit = "pages", .direction = METRIC_NEUTRAL,
    .help = "uncompressed size of the pages held in the zswap pool (debugfs stored_pages x page size)")
TRIAL(PM_ZSWAP_STORED_BEFORE, ZSWAP_STORED_PAGES, .key = "zswap_stored_pages_before",
      .kind = METRIC_KIND_GAUGE)
TICK(SM_ZP_STORED_PAGES, ZSWAP_STORED_PAGES, .group = SG_ZSWAP, .key = "stored_pages",
     .unit = "pages", .prom = "swaptune_zswap_stored_bytes", .prom_unit = SPU_PAGES_TO_BYTES,
     .integral = true)

ROW(ZSWAP_POOL_BYTES, .source = VSRC_ZSWAP, .keys = { "pool_total_size" },
    .name = "zswap pool size", .label = "zswap pool size", .unit = "bytes",
    .direction = METRIC_NEUTRAL,
    .help = "compressed size of the zswap pool in bytes (debugfs pool_total_size)")
TICK(SM_ZP_POOL_BYTES, ZSWAP_POOL_BYTES, .group = SG_ZSWAP, .key = "pool_bytes", .unit = "bytes",
     .prom = "swaptune_zswap_pool_bytes", .integral = true)

ROW(ZSWAP_INCOMPRESSIBLE, .source = VSRC_ZSWAP, .keys = { "stored_incompressible_pages" },
    .name = "zswap incompressible pages", .label = "zswap incompressible", .unit = "pages",
    .direction = METRIC_NEUTRAL,
    .help = "size of the pages stored uncompressed because they did not compress (debugfs stored_incompressible_pages x page size)")
TICK(SM_ZP_INCOMPRESSIBLE_PAGES, ZSWAP_INCOMPRESSIBLE, .group = SG_ZSWAP,
     .key = "incompressible_pages", .unit = "pages", .prom = "swaptune_zswap_incompressible_bytes",
     .prom_unit = SPU_PAGES_TO_BYTES, .integral = true)

ROW(ZSWAP_WRITTEN_BACK, .source = VSRC_ZSWAP, .keys = { "written_back_pages" },
    .name = "zswap pages written back", .label = "zswap written back", .unit = "pages",
    .direction = METRIC_LOWER_BETTER,
    .help = "pages written back from the zswap pool (debugfs written_back_pages)")
TRIAL(PM_ZSWAP_WRITTEN_BACK, ZSWAP_WRITTEN_BACK, .key = "zswap_written_back_pages",
      .kind = METRIC_KIND_COUNTER)
TICK(SM_ZP_WRITTEN_BACK, ZSWAP_WRITTEN_BACK, .group = SG_ZSWAP, .key = "written_back_pages_per_s",
     .unit = "pages/s")
TOTAL(SC_ZP_WB, ZSWAP_WRITTEN_BACK, .group = SG_ZSWAP, .key = "zswap_written_back_pages",
      .prom = "swaptune_zswap_written_back_pages_total")

/* whichever reject_* files this kernel has (one is enough) */
ROW(ZSWAP_REJECTS, .source = VSRC_ZSWAP,
    .keys = { "reject_reclaim_fail", "reject_alloc_fail", "reject_kmemcache_fail",
	      "reject_compress_fail", "reject_compress_poor" },
    .sum = VSUM_PRESENT, .name = "zswap rejects", .label = "zswap rejects", .unit = "pages",
    .direction = METRIC_LOWER_BETTER, .help = "stores zswap rejected (debugfs reject_*)")
TICK(SM_ZP_REJECTS, ZSWAP_REJECTS, .group = SG_ZSWAP, .key = "rejects_per_s", .unit = "pages/s")
TOTAL(SC_ZP_REJECTS, ZSWAP_REJECTS, .group = SG_ZSWAP, .key = "zswap_rejects",
      .prom = "swaptune_zswap_rejects_total")

ROW(ZSWAP_POOL_LIMIT_HIT, .source = VSRC_ZSWAP, .keys = { "pool_limit_hit" },
    .name = "zswap pool limit hits", .label = "zswap pool limit hits", .unit = "events",
    .direction = METRIC_LOWER_BETTER,
    .help = "times the zswap pool hit its size limit (debugfs pool_limit_hit)")
TRIAL(PM_ZSWAP_POOL_LIMIT_HIT, ZSWAP_POOL_LIMIT_HIT, .key = "zswap_pool_limit_hit",
      .kind = METRIC_KIND_COUNTER)
TICK(SM_ZP_POOL_LIMIT_HITS, ZSWAP_POOL_LIMIT_HIT, .group = SG_ZSWAP, .key = "pool_limit_hits_per_s",
     .unit = "events/s")
TOTAL(SC_ZP_LIMIT, ZSWAP_POOL_LIMIT_HIT, .group = SG_ZSWAP, .key = "zswap_pool_limit_hits",
      .prom = "swaptune_zswap_pool_limit_hits_total")

ROW(ZSWAP_REJECT_POOR, .source = VSRC_ZSWAP, .keys = { "reject_compress_poor" },
    .name = "zswap poor-compression rejects", .label = "zswap poor-compression rejects",
    .unit = "pages", .direction = METRIC_LOWER_BETTER,
    .help = "stores zswap rejected because the page compressed poorly (debugfs reject_compress_poor)")
TRIAL(PM_ZSWAP_REJECT_POOR, ZSWAP_REJECT_POOR, .key = "zswap_reject_compress_poor",
      .kind = METRIC_KIND_COUNTER)

/* ---- PSI, /proc/pressure/memory: keys = the line and its field ---- */

ROW(PSI_SOME, .source = VSRC_PSI, .keys = { "some", "total" }, .name = "PSI memory some",
    .label = "memory stall (some)", .unit = "us", .direction = METRIC_LOWER_BETTER,
    .help = "time some task stalled on memory (PSI memory some total)")
TRIAL(PM_PSI_SOME_US, PSI_SOME, .key = "psi_some_us", .kind = METRIC_KIND_COUNTER,
      .head = "psi_ms")
TICK(SM_PSI_SOME_PCT, PSI_SOME, .group = SG_PSI, .key = "some_pct", .unit = "%", .scale = 1e-4,
     .head = "some%")
TOTAL(SC_PSI_SOME, PSI_SOME, .group = SG_PSI, .key = "psi_some_us",
      .prom = "swaptune_memory_pressure_some_seconds_total", .prom_scale = 1e-6)

ROW(PSI_FULL, .source = VSRC_PSI, .keys = { "full", "total" }, .name = "PSI memory full",
    .label = "memory stall (full)", .unit = "us", .direction = METRIC_LOWER_BETTER,
    .help = "time all non-idle tasks stalled on memory (PSI memory full total)")
TRIAL(PM_PSI_FULL_US, PSI_FULL, .key = "psi_full_us", .kind = METRIC_KIND_COUNTER)
TICK(SM_PSI_FULL_PCT, PSI_FULL, .group = SG_PSI, .key = "full_pct", .unit = "%", .scale = 1e-4,
     .head = "full%")
TOTAL(SC_PSI_FULL, PSI_FULL, .group = SG_PSI, .key = "psi_full_us",
      .prom = "swaptune_memory_pressure_full_seconds_total", .prom_scale = 1e-6)

ROW(PSI_SOME_AVG10, .source = VSRC_PSI, .keys = { "some", "avg10" }, .name = "PSI memory some avg10",
    .label = "memory stall (some, avg10)", .unit = "%", .direction = METRIC_LOWER_BETTER,
    .help = "share of time some task stalled on memory, kernel 10 s average (PSI avg10 / 100)")
TICK(SM_PSI_SOME_AVG10, PSI_SOME_AVG10, .group = SG_PSI, .key = "some_avg10_pct", .unit = "%",
     .prom = "swaptune_memory_pressure_some_avg10_ratio", .prom_unit = SPU_PCT_TO_RATIO)

ROW(PSI_FULL_AVG10, .source = VSRC_PSI, .keys = { "full", "avg10" }, .name = "PSI memory full avg10",
    .label = "memory stall (full, avg10)", .unit = "%", .direction = METRIC_LOWER_BETTER,
    .help = "share of time all non-idle tasks stalled on memory, kernel 10 s average (PSI avg10 / 100)")
TICK(SM_PSI_FULL_AVG10, PSI_FULL_AVG10, .group = SG_PSI, .key = "full_avg10_pct", .unit = "%",
     .prom = "swaptune_memory_pressure_full_avg10_ratio", .prom_unit = SPU_PCT_TO_RATIO)

/* ---- /proc/meminfo (in bytes) ---- */

ROW(SWAP_USED, .source = VSRC_MEMINFO, .keys = { "SwapTotal", "SwapFree" }, .sum = VSUM_DIFF,
    .name = "swap used", .label = "swap used", .unit = "bytes", .direction = METRIC_NEUTRAL,
    .help = "swap in use in bytes (meminfo SwapTotal - SwapFree)")
TICK(SM_SWAP_USED_BYTES, SWAP_USED, .group = SG_MEMINFO, .key = "swap_used_bytes", .unit = "bytes",
     .prom = "swaptune_swap_used_bytes", .integral = true)

ROW(SWAP_CACHED, .source = VSRC_MEMINFO, .keys = { "SwapCached" }, .name = "swap cache",
    .label = "swap cache", .unit = "bytes", .direction = METRIC_NEUTRAL,
    .help = "swap cache in bytes (meminfo SwapCached)")
TICK(SM_SWAP_CACHED_BYTES, SWAP_CACHED, .group = SG_MEMINFO, .key = "swap_cached_bytes",
     .unit = "bytes", .prom = "swaptune_swap_cached_bytes", .integral = true)

ROW(ZSWAP_BYTES, .source = VSRC_MEMINFO, .keys = { "Zswap" }, .name = "zswap pool",
    .label = "zswap pool", .unit = "bytes", .direction = METRIC_NEUTRAL,
    .help = "memory used by the zswap pool in bytes (meminfo Zswap)")
TICK(SM_ZSWAP_BYTES, ZSWAP_BYTES, .group = SG_MEMINFO, .key = "zswap_bytes", .unit = "bytes",
     .prom = "swaptune_zswap_compressed_bytes", .integral = true, .head = "zsMiB")

ROW(ZSWAPPED_BYTES, .source = VSRC_MEMINFO, .keys = { "Zswapped" }, .name = "zswapped",
    .label = "zswapped", .unit = "bytes", .direction = METRIC_NEUTRAL,
    .help = "uncompressed size of the pages in zswap in bytes (meminfo Zswapped)")
TICK(SM_ZSWAPPED_BYTES, ZSWAPPED_BYTES, .group = SG_MEMINFO, .key = "zswapped_bytes",
     .unit = "bytes", .prom = "swaptune_zswap_uncompressed_bytes", .integral = true)

/* ---- one memory cgroup's memory.stat: keys on v2, keys_v1 on v1 (hierarchical total_*) ---- */

ROW(CG_ANON, .source = VSRC_MEMCG, .keys = { "anon" }, .keys_v1 = { "total_rss" },
    .name = "cgroup anon", .label = "cgroup anon", .unit = "bytes", .direction = METRIC_NEUTRAL,
    .help = "anonymous memory of the cgroup in bytes (memory.stat anon / total_rss)")
TICK(SM_CG_ANON_BYTES, CG_ANON, .group = SG_CGROUP, .key = "anon_bytes", .unit = "bytes",
     .prom = "swaptune_cgroup_anon_bytes", .integral = true, .head = "cgMiB")

ROW(CG_FILE, .source = VSRC_MEMCG, .keys = { "file" }, .keys_v1 = { "total_cache" },
    .name = "cgroup page cache", .label = "cgroup page cache", .unit = "bytes",
    .direction = METRIC_NEUTRAL,
    .help = "page cache of the cgroup in bytes (memory.stat file / total_cache)")
TICK(SM_CG_FILE_BYTES, CG_FILE, .group = SG_CGROUP, .key = "file_bytes", .unit = "bytes",
     .prom = "swaptune_cgroup_file_bytes", .integral = true)

ROW(CG_SWAP, .source = VSRC_MEMCG, .keys_v1 = { "total_swap" }, .name = "cgroup swap",
    .label = "cgroup swap", .unit = "bytes", .direction = METRIC_NEUTRAL,
    .help = "swap used by the cgroup in bytes (cgroup v1 memory.stat total_swap)")
TICK(SM_CG_SWAP_BYTES, CG_SWAP, .group = SG_CGROUP, .key = "swap_bytes", .unit = "bytes",
     .prom = "swaptune_cgroup_swap_bytes", .integral = true)

ROW(CG_SWAPCACHED, .source = VSRC_MEMCG, .keys = { "swapcached" }, .keys_v1 = { "total_swapcached" },
    .name = "cgroup swap cache", .label = "cgroup swap cache", .unit = "bytes",
    .direction = METRIC_NEUTRAL,
    .help = "swap cache charged to the cgroup in bytes (memory.stat swapcached)")
TICK(SM_CG_SWAPCACHED_BYTES, CG_SWAPCACHED, .group = SG_CGROUP, .key = "swapcached_bytes",
     .unit = "bytes", .prom = "swaptune_cgroup_swapcached_bytes", .integral = true)

ROW(CG_ZSWAP, .source = VSRC_MEMCG, .keys = { "zswap" }, .name = "cgroup zswap",
    .label = "cgroup zswap", .unit = "bytes", .direction = METRIC_NEUTRAL,
    .help = "zswap pool memory of the cgroup in bytes (cgroup v2 memory.stat zswap)")
TICK(SM_CG_ZSWAP_BYTES, CG_ZSWAP, .group = SG_CGROUP, .key = "zswap_bytes", .unit = "bytes",
     .prom = "swaptune_cgroup_zswap_bytes", .integral = true)

ROW(CG_ZSWAPPED, .source = VSRC_MEMCG, .keys = { "zswapped" }, .name = "cgroup zswapped",
    .label = "cgroup zswapped", .unit = "bytes", .direction = METRIC_NEUTRAL,
    .help = "uncompressed size of the cgroup's pages in zswap (cgroup v2 memory.stat zswapped)")
TICK(SM_CG_ZSWAPPED_BYTES, CG_ZSWAPPED, .group = SG_CGROUP, .key = "zswapped_bytes",
     .unit = "bytes", .prom = "swaptune_cgroup_zswapped_bytes", .integral = true)

ROW(CG_PGMAJFAULT, .source = VSRC_MEMCG, .keys = { "pgmajfault" }, .keys_v1 = { "total_pgmajfault" },
    .name = "cgroup major faults", .label = "major faults (memory cgroup)", .unit = "faults",
    .direction = METRIC_LOWER_BETTER, .help = "major faults of the cgroup (memory.stat pgmajfault)")
TRIAL(PM_MEMCG_PGMAJFAULT, CG_PGMAJFAULT, .key = "memcg_pgmajfault", .kind = METRIC_KIND_COUNTER)
TICK(SM_CG_PGMAJFAULT, CG_PGMAJFAULT, .group = SG_CGROUP, .key = "pgmajfault_per_s",
     .unit = "faults/s", .head = "cgmaj")
TOTAL(SC_CG_PGMAJ, CG_PGMAJFAULT, .group = SG_CGROUP, .key = "cgroup_pgmajfault",
      .prom = "swaptune_cgroup_pgmajfault_total")

ROW(CG_ZSWPIN, .source = VSRC_MEMCG, .keys = { "zswpin" }, .name = "cgroup zswpin",
    .label = "cgroup zswap loads", .unit = "pages", .direction = METRIC_LOWER_BETTER,
    .help = "pages the cgroup loaded from zswap (cgroup v2 memory.stat zswpin)")
TICK(SM_CG_ZSWPIN, CG_ZSWPIN, .group = SG_CGROUP, .key = "zswpin_pages_per_s", .unit = "pages/s")
TOTAL(SC_CG_ZSWPIN, CG_ZSWPIN, .group = SG_CGROUP, .key = "cgroup_zswpin_pages",
      .prom = "swaptune_cgroup_zswpin_pages_total")

ROW(CG_ZSWPOUT, .source = VSRC_MEMCG, .keys = { "zswpout" }, .name = "cgroup zswpout",
    .label = "cgroup zswap stores", .unit = "pages", .direction = METRIC_LOWER_BETTER,
    .help = "pages the cgroup stored into zswap (cgroup v2 memory.stat zswpout)")
TICK(SM_CG_ZSWPOUT, CG_ZSWPOUT, .group = SG_CGROUP, .key = "zswpout_pages_per_s", .unit = "pages/s")
TOTAL(SC_CG_ZSWPOUT, CG_ZSWPOUT, .group = SG_CGROUP, .key = "cgroup_zswpout_pages",
      .prom = "swaptune_cgroup_zswpout_pages_total")

ROW(CG_ZSWPWB, .source = VSRC_MEMCG, .keys = { "zswpwb" }, .name = "cgroup zswap writeback",
    .label = "cgroup zswap writebacks", .unit = "pages", .direction = METRIC_LOWER_BETTER,
    .help = "pages of the cgroup written back from zswap (cgroup v2 memory.stat zswpwb)")
TICK(SM_CG_ZSWPWB, CG_ZSWPWB, .group = SG_CGROUP, .key = "zswpwb_pages_per_s", .unit = "pages/s")
TOTAL(SC_CG_ZSWPWB, CG_ZSWPWB, .group = SG_CGROUP, .key = "cgroup_zswpwb_pages",
      .prom = "swaptune_cgroup_zswpwb_pages_total")

ROW(CG_REFAULT_ANON, .source = VSRC_MEMCG, .keys = { "workingset_refault_anon" },
    .keys_v1 = { "total_workingset_refault_anon" }, .name = "cgroup anon refaults",
    .label = "cgroup anon refaults", .unit = "pages", .direction = METRIC_LOWER_BETTER,
    .help = "anon workingset refaults of the cgroup (memory.stat workingset_refault_anon)")
TICK(SM_CG_REFAULT_ANON, CG_REFAULT_ANON, .group = SG_CGROUP, .key = "refault_anon_pages_per_s",
     .unit = "pages/s")
TOTAL(SC_CG_REFAULT_ANON, CG_REFAULT_ANON, .group = SG_CGROUP, .key = "cgroup_refault_anon_pages",
      .prom = "swaptune_cgroup_workingset_refault_anon_pages_total")

/* the cgroup's memory.pressure: keys = the line and its field */
ROW(CG_PSI_SOME, .source = VSRC_MEMCG_PSI, .keys = { "some", "total" }, .name = "cgroup PSI some",
    .label = "cgroup stall (some)", .unit = "us", .direction = METRIC_LOWER_BETTER,
    .help = "time some task of the cgroup stalled on memory (memory.pressure some total)")
TICK(SM_CG_PSI_SOME_PCT, CG_PSI_SOME, .group = SG_CGROUP, .key = "psi_some_pct", .unit = "%",
     .scale = 1e-4)
TOTAL(SC_CG_PSI_SOME, CG_PSI_SOME, .group = SG_CGROUP, .key = "cgroup_psi_some_us",
      .prom = "swaptune_cgroup_memory_pressure_some_seconds_total", .prom_scale = 1e-6)

ROW(CG_PSI_FULL, .source = VSRC_MEMCG_PSI, .keys = { "full", "total" }, .name = "cgroup PSI full",
    .label = "cgroup stall (full)", .unit = "us", .direction = METRIC_LOWER_BETTER,
    .help = "time all tasks of the cgroup stalled on memory (memory.pressure full total)")
TICK(SM_CG_PSI_FULL_PCT, CG_PSI_FULL, .group = SG_CGROUP, .key = "psi_full_pct", .unit = "%",
     .scale = 1e-4)
TOTAL(SC_CG_PSI_FULL, CG_PSI_FULL, .group = SG_CGROUP, .key = "cgroup_psi_full_us",
      .prom = "swaptune_cgroup_memory_pressure_full_seconds_total", .prom_scale = 1e-6)

/* the cgroup's CPU time (host-cgcpu.c): v2 cpu.stat usage_usec, v1 cpuacct.usage */
ROW(CG_CPU, .source = VSRC_CGROUP_CPU, .keys = { "usage_usec" }, .keys_v1 = { "cpuacct.usage" },
    .name = "cgroup CPU", .label = "CPU of the cgroup", .unit = "ns",
    .direction = METRIC_LOWER_BETTER,
    .help = "CPU time of the cgroup (cgroup v2 cpu.stat usage_usec, v1 cpuacct.usage), in ns")

/* a file of its own per cgroup version; the probe reads it for its trial's cgroup */
ROW(MEMCG_PEAK, .source = VSRC_MEMCG_FILE, .keys = { "memory.peak" },
    .keys_v1 = { "memory.max_usage_in_bytes" }, .name = "memory cgroup peak",
    .label = "memory cgroup peak", .unit = "bytes", .direction = METRIC_NEUTRAL,
    .help = "highest memory use of the trial's cgroup (memory.peak / memory.max_usage_in_bytes)")
TRIAL(PM_MEMCG_PEAK_BYTES, MEMCG_PEAK, .key = "memcg_peak_bytes", .kind = METRIC_KIND_GAUGE)

/* ---- CPU counters (perf events through libpfm4): keys = pmu.c's event name ---- */

ROW(CPU_CYCLES, .source = VSRC_PMU, .keys = { "cycles" }, .name = "CPU cycles",
    .label = "CPU cycles", .unit = "cycles", .direction = METRIC_LOWER_BETTER,
    .help = "CPU cycles since sampling started (hardware counter)")
TRIAL(PM_CYCLES, CPU_CYCLES, .key = "cycles", .kind = METRIC_KIND_COUNTER)
TICK(SM_CPU_CYCLES, CPU_CYCLES, .group = SG_CPU, .key = "cycles_per_s", .unit = "cycles/s")
TOTAL(SC_CPU_CYCLES, CPU_CYCLES, .group = SG_CPU, .key = "cpu_cycles",
      .prom = "swaptune_cpu_cycles_total")

ROW(CPU_INSTRUCTIONS, .source = VSRC_PMU, .keys = { "instructions" }, .name = "instructions",
    .label = "instructions", .unit = "instructions", .direction = METRIC_NEUTRAL,
    .help = "instructions retired since sampling started (hardware counter)")
TRIAL(PM_INSTRUCTIONS, CPU_INSTRUCTIONS, .key = "instructions", .kind = METRIC_KIND_COUNTER)
TICK(SM_CPU_INSTRUCTIONS, CPU_INSTRUCTIONS, .group = SG_CPU, .key = "instructions_per_s",
     .unit = "instructions/s")
TOTAL(SC_CPU_INSN, CPU_INSTRUCTIONS, .group = SG_CPU, .key = "cpu_instructions",
      .prom = "swaptune_cpu_instructions_total")

ROW(CPU_DTLB_MISSES, .source = VSRC_PMU, .keys = { "dtlb_load_misses" }, .name = "dTLB load misses",
    .label = "dTLB load misses", .unit = "misses", .direction = METRIC_LOWER_BETTER,
    .help = "dTLB load misses since sampling started (hardware counter)")
TICK(SM_CPU_DTLB_MISSES, CPU_DTLB_MISSES, .group = SG_CPU, .key = "dtlb_load_misses_per_s",
     .unit = "misses/s")
TOTAL(SC_CPU_DTLB, CPU_DTLB_MISSES, .group = SG_CPU, .key = "cpu_dtlb_load_misses",
      .prom = "swaptune_cpu_dtlb_load_misses_total")

/* ns of CPU per s is a share of one CPU: x 1e-7 makes it percent */
ROW(CPU_TASK_CLOCK, .source = VSRC_PMU, .keys = { "task_clock_ns" }, .name = "CPU busy",
    .label = "CPU busy", .unit = "ns", .direction = METRIC_LOWER_BETTER,
    .help = "CPU time of the target since sampling started (task-clock software event)")
TRIAL(PM_TASK_CLOCK_NS, CPU_TASK_CLOCK, .key = "task_clock_ns", .kind = METRIC_KIND_COUNTER)
TICK(SM_CPU_BUSY_PCT, CPU_TASK_CLOCK, .group = SG_CPU, .key = "busy_pct", .unit = "%",
     .scale = 1e-7, .head = "cpu%")
TOTAL(SC_CPU_TASK_CLOCK, CPU_TASK_CLOCK, .group = SG_CPU, .key = "cpu_task_clock_ns",
      .prom = "swaptune_cpu_task_clock_seconds_total", .prom_scale = 1e-9)

ROW(CPU_MAJOR_FAULTS, .source = VSRC_PMU, .keys = { "major_faults" }, .name = "major faults (perf)",
    .label = "major faults (perf)", .unit = "faults", .direction = METRIC_LOWER_BETTER,
    .help = "major faults since sampling started (software event)")
TICK(SM_CPU_MAJOR_FAULTS, CPU_MAJOR_FAULTS, .group = SG_CPU, .key = "major_faults_per_s",
     .unit = "faults/s")
TOTAL(SC_CPU_MAJ, CPU_MAJOR_FAULTS, .group = SG_CPU, .key = "cpu_major_faults",
      .prom = "swaptune_cpu_major_faults_total")

ROW(CPU_MINOR_FAULTS, .source = VSRC_PMU, .keys = { "minor_faults" }, .name = "minor faults (perf)",
    .label = "minor faults (perf)", .unit = "faults", .direction = METRIC_NEUTRAL,
    .help = "minor faults since sampling started (software event)")
TICK(SM_CPU_MINOR_FAULTS, CPU_MINOR_FAULTS, .group = SG_CPU, .key = "minor_faults_per_s",
     .unit = "faults/s")
TOTAL(SC_CPU_MIN, CPU_MINOR_FAULTS, .group = SG_CPU, .key = "cpu_minor_faults",
      .prom = "swaptune_cpu_minor_faults_total")

ROW(CPU_CONTEXT_SWITCHES, .source = VSRC_PMU, .keys = { "context_switches" },
    .name = "context switches", .label = "context switches", .unit = "switches",
    .direction = METRIC_LOWER_BETTER,
    .help = "context switches since sampling started (software event)")
TRIAL(PM_CTX_SWITCHES, CPU_CONTEXT_SWITCHES, .key = "context_switches", .kind = METRIC_KIND_COUNTER)
TICK(SM_CPU_CONTEXT_SWITCHES, CPU_CONTEXT_SWITCHES, .group = SG_CPU, .key = "context_switches_per_s",
     .unit = "switches/s")
TOTAL(SC_CPU_CSW, CPU_CONTEXT_SWITCHES, .group = SG_CPU, .key = "cpu_context_switches",
      .prom = "swaptune_cpu_context_switches_total")

/* ---- the trial process and its children (wait4 rusage) ---- */

ROW(CPU_USER_NS, .source = VSRC_RUSAGE, .name = "user CPU", .label = "user CPU", .unit = "ns",
    .direction = METRIC_LOWER_BETTER, .help = "user CPU time of the trial (rusage)")
TRIAL(PM_CPU_USER_NS, CPU_USER_NS, .key = "cpu_user_ns", .kind = METRIC_KIND_COUNTER)

ROW(CPU_SYS_NS, .source = VSRC_RUSAGE, .name = "system CPU", .label = "system CPU", .unit = "ns",
    .direction = METRIC_LOWER_BETTER, .help = "system CPU time of the trial (rusage)")
TRIAL(PM_CPU_SYS_NS, CPU_SYS_NS, .key = "cpu_sys_ns", .kind = METRIC_KIND_COUNTER)

ROW(MAJ_FAULTS, .source = VSRC_RUSAGE, .name = "major faults (workload)",
    .label = "major faults (workload)", .unit = "faults", .direction = METRIC_LOWER_BETTER,
    .help = "major faults of the trial's processes (rusage)")
TRIAL(PM_MAJ_FAULTS, MAJ_FAULTS, .key = "maj_faults", .kind = METRIC_KIND_COUNTER)

ROW(MIN_FAULTS, .source = VSRC_RUSAGE, .name = "minor faults (workload)",
    .label = "minor faults (workload)", .unit = "faults", .direction = METRIC_NEUTRAL,
    .help = "minor faults of the trial's processes (rusage)")
TRIAL(PM_MIN_FAULTS, MIN_FAULTS, .key = "min_faults", .kind = METRIC_KIND_COUNTER)

/* ---- the probe engine's clock around one trial (where a trial's time goes) ---- */

ROW(PREPARE_S, .source = VSRC_ENGINE, .name = "trial preparation", .label = "trial preparation",
    .unit = "s", .direction = METRIC_NEUTRAL,
    .help = "time from a trial's start to the fork of its process (memory cgroup, swap emptying)")
TRIAL(PM_PREPARE_S, PREPARE_S, .key = "prepare_s", .kind = METRIC_KIND_GAUGE)

ROW(PROCESS_S, .source = VSRC_ENGINE, .name = "trial process", .label = "trial process wall time",
    .unit = "s", .direction = METRIC_NEUTRAL, .help = "a trial process's time from fork to reap")
TRIAL(PM_PROCESS_S, PROCESS_S, .key = "process_s", .kind = METRIC_KIND_GAUGE)

ROW(CLEANUP_S, .source = VSRC_ENGINE, .name = "trial clean-up", .label = "trial cgroup emptying",
    .unit = "s", .direction = METRIC_NEUTRAL,
    .help = "time to empty and remove a trial's memory cgroup after its process")
TRIAL(PM_CLEANUP_S, CLEANUP_S, .key = "cleanup_s", .kind = METRIC_KIND_GAUGE)

/* ---- a busy host: proc/pressure/cpu and proc/stat over one trial ---- */

ROW(CPU_PSI_SOME, .source = VSRC_HOST_CPU, .keys = { "some", "total" }, .name = "host CPU stall",
    .label = "host CPU stall (PSI some)", .unit = "us", .direction = METRIC_NEUTRAL,
    .help = "time some runnable task waited for a CPU during the trial (proc/pressure/cpu some total)")
TRIAL(PM_CPU_PSI_SOME_US, CPU_PSI_SOME, .key = "cpu_psi_some_us", .kind = METRIC_KIND_COUNTER)

ROW(CPU_STEAL, .source = VSRC_HOST_CPU, .keys = { "steal" }, .name = "host CPU steal",
    .label = "host CPU steal", .unit = "ms", .direction = METRIC_NEUTRAL,
    .help = "CPU time the hypervisor gave others during the trial, all CPUs (proc/stat steal)")
TRIAL(PM_CPU_STEAL_MS, CPU_STEAL, .key = "cpu_steal_ms", .kind = METRIC_KIND_COUNTER)

ROW(PROCS_RUNNING, .source = VSRC_HOST_CPU, .keys = { "procs_running" }, .name = "runnable tasks",
    .label = "runnable tasks (host)", .unit = "tasks", .direction = METRIC_NEUTRAL,
    .help = "runnable tasks on the host, mean of the trial's samples (proc/stat procs_running)")
TRIAL(PM_PROCS_RUNNING, PROCS_RUNNING, .key = "procs_running", .kind = METRIC_KIND_GAUGE)

/* ---- derived from the rows above (code, not a kernel key) ---- */

ROW(RA_HIT_PCT, .source = VSRC_DERIVED, .name = "readahead hit rate",
    .label = "readahead hit ratio", .unit = "%", .direction = METRIC_HIGHER_BETTER,
    .help = "share of the pages read ahead in the last tick that were used (swap_ra_hit / swap_ra, at most 1)")
TICK(SM_RA_HIT_PCT, RA_HIT_PCT, .group = SG_DERIVED, .key = "ra_hit_pct", .unit = "%",
     .prom = "swaptune_readahead_hit_ratio", .prom_unit = SPU_PCT_TO_RATIO, .head = "hit%")

ROW(RA_WASTED, .source = VSRC_DERIVED, .name = "wasted readahead", .label = "wasted readahead",
    .unit = "pages", .direction = METRIC_LOWER_BETTER,
    .help = "readahead pages not used (swap_ra - swap_ra_hit, not below 0)")
TRIAL(PM_RA_WASTED, RA_WASTED, .key = "swap_ra_wasted", .kind = METRIC_KIND_DERIVED)
TICK(SM_RA_WASTED, RA_WASTED, .group = SG_DERIVED, .key = "ra_wasted_pages_per_s",
     .unit = "pages/s", .head = "waste")

ROW(ZSWAP_RATIO, .source = VSRC_DERIVED, .name = "zswap compression ratio",
    .label = "zswap compression", .unit = "x", .direction = METRIC_HIGHER_BETTER,
    .help = "uncompressed / compressed size of the zswap pool (debugfs, else meminfo)")
TICK(SM_ZSWAP_RATIO, ZSWAP_RATIO, .group = SG_DERIVED, .key = "zswap_compression_ratio",
     .unit = "x", .prom = "swaptune_zswap_stored_bytes_per_pool_byte", .head = "ratio")

ROW(IPC, .source = VSRC_DERIVED, .name = "instructions per cycle", .label = "instructions per cycle",
    .unit = "", .direction = METRIC_HIGHER_BETTER, .help = "instructions per cycle (hardware counters)")
TICK(SM_IPC, IPC, .group = SG_DERIVED, .key = "ipc", .unit = "", .head = "ipc")

ROW(CPU_NS_PER_OP, .source = VSRC_DERIVED, .name = "CPU per operation",
    .label = "CPU per operation", .unit = "ns", .direction = METRIC_LOWER_BETTER,
    .help = "user + system CPU of the trial per operation (the whole run for a command)")
TRIAL(PM_CPU_NS_PER_OP, CPU_NS_PER_OP, .key = "cpu_ns_per_op", .kind = METRIC_KIND_DERIVED,
      .head = "cpu_ns/op")

ROW(CPU_PRESSURE_PCT, .source = VSRC_DERIVED, .name = "host CPU pressure",
    .label = "host CPU pressure", .unit = "%", .direction = METRIC_NEUTRAL,
    .help = "host CPU stall (PSI some) as a share of the trial process's wall time")
TRIAL(PM_CPU_PRESSURE_PCT, CPU_PRESSURE_PCT, .key = "cpu_pressure_pct", .kind = METRIC_KIND_DERIVED)

ROW(CPU_SHARE, .source = VSRC_DERIVED, .name = "trial CPU share", .label = "trial CPU time / wall time",
    .unit = "ratio", .direction = METRIC_NEUTRAL,
    .help = "the trial's user + system CPU (rusage) over its process's wall time; 1 = one CPU all along")
TRIAL(PM_CPU_SHARE, CPU_SHARE, .key = "cpu_share", .kind = METRIC_KIND_DERIVED)

/*
 * ---- switchback's figures per window (sbrun.h), in stored order ----
 * The first is the default --metric. A figure is the rate of its host
 * counter (plus host_plus, summed), or of its cgroup counter when
 * --cgroup names a cgroup that has it; per: counter units per figure unit
 * (PSI us/s -> %: 1e4). arms_col/windows_col: its column among the kernel
 * figures of the switchback report's arms and windows tables (1 = first),
 * 0 = not shown there.
 */
WINDOW(SBK_PSI_SOME, PSI_SOME, "psi-some", .key = "psi_some_pct", .unit = "%",
       .label = "PSI memory some", .host = SC_PSI_SOME, .cgroup = SC_CG_PSI_SOME, .per = 1e4,
       .head = "PSI some %", .arms_col = 1, .windows_col = 1)
WINDOW(SBK_PSI_FULL, PSI_FULL, "psi-full", .key = "psi_full_pct", .unit = "%",
       .label = "PSI memory full", .host = SC_PSI_FULL, .cgroup = SC_CG_PSI_FULL, .per = 1e4,
       .head = "PSI full %", .arms_col = 2, .windows_col = 2)
WINDOW(SBK_MAJFAULT, PGMAJFAULT, "majfault", .key = "majfault_per_s", .unit = "faults/s",
       .label = "major faults", .host = SC_PGMAJFAULT, .cgroup = SC_CG_PGMAJ, .head = "majfault/s",
       .arms_col = 5)
/* the host's anon and file refaults; a cgroup's anon ones */
WINDOW(SBK_REFAULT, REFAULT_ANON, "refault", .key = "refault_per_s", .unit = "pages/s",
       .label = "workingset refaults", .host = SC_REFAULT_ANON, .host_plus = SC_REFAULT_FILE,
       .cgroup = SC_CG_REFAULT_ANON)
/* available where zswpin is counted (host is the counter checked) */
WINDOW(SBK_SWAPIN, PSWPIN, "swapin", .key = "swapin_per_s", .unit = "pages/s",
       .label = "swap-ins (pswpin + zswpin)", .host = SC_ZSWPIN, .host_plus = SC_PSWPIN)
WINDOW(SBK_SWAP_RA, SWAP_RA, "swap-ra", .key = "swap_ra_per_s", .unit = "pages/s",
       .label = "swap readahead", .host = SC_SWAP_RA, .head = "swap_ra/s", .arms_col = 4,
       .windows_col = 4)
WINDOW(SBK_SWAP_RA_HIT, SWAP_RA_HIT, "swap-ra-hit", .key = "swap_ra_hit_per_s",
       .unit = "pages/s", .label = "swap readahead hits", .host = SC_SWAP_RA_HIT)
WINDOW(SBK_ZSWPIN, ZSWPIN, "zswpin", .key = "zswpin_per_s", .unit = "pages/s",
       .label = "zswap loads", .host = SC_ZSWPIN, .cgroup = SC_CG_ZSWPIN, .head = "zswpin/s",
       .arms_col = 3, .windows_col = 3)
/* the cgroup's only (--cgroup with CPU accounting), read by host-cgcpu.c: ns per s */
WINDOW(SBK_CPU, CG_CPU, "cpu", .key = "cpu_s_per_s", .unit = "CPU s/s",
       .label = "CPU of the cgroup", .cgroup_cpu = true, .per = 1e9)

/*
 * ---- the verdict's secondary costs (enum verdict_secondary), all lower is
 * better, one value per completed trial; in the order advice's JSON lists
 * them (never reordered: the "secondary" objects keep it) ----
 * A row's TRIAL value is the cost, except: zswpout's is zswpout + pswpout -
 * zswpwb (the guardrail, metric.c), and a trial without swap_ra_wasted gets
 * swap_ra - swap_ra_hit.
 */
SECONDARY(VERDICT_SEC_ZSWPIN_PAGES, PM_ZSWPIN, .name = "zswpin_pages")
SECONDARY(VERDICT_SEC_ZSWPOUT_PAGES, PM_ZSWPOUT, .name = "zswpout_pages")
SECONDARY(VERDICT_SEC_WASTED_RA_PAGES, PM_RA_WASTED, .name = "wasted_ra_pages")
SECONDARY(VERDICT_SEC_CPU_NS_PER_OP, PM_CPU_NS_PER_OP, .name = "cpu_ns_per_op")
SECONDARY(VERDICT_SEC_MAJOR_FAULTS, PM_PGMAJFAULT, .name = "major_faults")
SECONDARY(VERDICT_SEC_PSI_SOME_US, PM_PSI_SOME_US, .name = "psi_some_us")

/*
 * ---- what each renderer shows, in the order it shows it ----
 * sample_table: the columns of sample's live table and of --replay's (six
 * characters each: every one has a head of at most 5; with --cgroup or
 * CPU counters cmd-sample.c swaps some for others). sample_summary: the
 * means of sample's last line. report_ticks: the sample report's
 * per-tick comparison (report-compare.c), report_charted: those it
 * charts. tui_live: the TUI's Live panel. probe_result: the columns of
 * probe's result table (every one has a head). report_counters: the
 * probe report's counter deltas per trial.
 */
SHOWN_TICKS(sample_table, SM_ZSWPIN, SM_ZSWPOUT, SM_ZSWPWB, SM_SWAP_RA, SM_RA_HIT_PCT, SM_RA_WASTED,
	    SM_PGMAJFAULT, SM_PSI_SOME_PCT, SM_PSI_FULL_PCT, SM_ZSWAP_BYTES, SM_ZSWAP_RATIO,
	    SM_CPU_BUSY_PCT)
SHOWN_TICKS(sample_summary, SM_ZSWPOUT, SM_ZSWPIN, SM_ZSWPWB, SM_SWAP_RA, SM_SWAP_RA_HIT,
	    SM_RA_WASTED, SM_PGMAJFAULT, SM_PSI_SOME_PCT, SM_PSI_FULL_PCT, SM_CPU_BUSY_PCT, SM_IPC)
SHOWN_TICKS(report_ticks, SM_ZSWPIN, SM_ZSWPOUT, SM_ZSWPWB, SM_PSWPIN, SM_PSWPOUT, SM_SWAP_RA,
	    SM_SWAP_RA_HIT, SM_RA_WASTED, SM_RA_HIT_PCT, SM_PGMAJFAULT, SM_REFAULT_ANON, SM_PGSCAN,
	    SM_PSI_SOME_PCT, SM_PSI_FULL_PCT, SM_SWAP_USED_BYTES, SM_ZSWAP_BYTES, SM_ZSWAP_RATIO,
	    SM_CPU_BUSY_PCT, SM_IPC)
SHOWN_TICKS(report_charted, SM_ZSWPOUT, SM_ZSWPIN, SM_SWAP_RA, SM_RA_WASTED, SM_PGMAJFAULT,
	    SM_PSI_SOME_PCT)
SHOWN_TICKS(tui_live, SM_ZSWPIN, SM_ZSWPOUT, SM_PSWPIN, SM_PSWPOUT, SM_SWAP_RA, SM_SWAP_RA_HIT,
	    SM_RA_HIT_PCT, SM_RA_WASTED, SM_PGMAJFAULT, SM_REFAULT_ANON, SM_REFAULT_FILE,
	    SM_PSI_SOME_PCT, SM_PSI_FULL_PCT, SM_ZP_STORED_PAGES, SM_ZSWAP_RATIO, SM_SWAP_USED_BYTES,
	    SM_CG_ZSWPIN, SM_CG_PSI_SOME_PCT)
SHOWN_TRIALS(probe_result, PM_ZSWPIN, PM_ZSWPOUT, PM_SWAP_RA, PM_SWAP_RA_HIT, PM_PGMAJFAULT,
	     PM_REFAULT_ANON, PM_PSI_SOME_US, PM_CPU_NS_PER_OP)
SHOWN_TRIALS(report_counters, PM_ZSWPIN, PM_ZSWPOUT, PM_SWAP_RA, PM_SWAP_RA_HIT, PM_RA_WASTED,
	     PM_PGMAJFAULT, PM_PSI_SOME_US, PM_PSI_FULL_US, PM_CPU_NS_PER_OP)

#ifdef VOCAB_SHOWN_TRIALS_UNSET
#undef SHOWN_TRIALS
#undef VOCAB_SHOWN_TRIALS_UNSET
#endif
#ifdef VOCAB_SHOWN_TICKS_UNSET
#undef SHOWN_TICKS
#undef VOCAB_SHOWN_TICKS_UNSET
#endif
#ifdef VOCAB_SECONDARY_UNSET
#undef SECONDARY
#undef VOCAB_SECONDARY_UNSET
#endif
#ifdef VOCAB_WINDOW_UNSET
#undef WINDOW
#undef VOCAB_WINDOW_UNSET
#endif
#ifdef VOCAB_TOTAL_UNSET
#undef TOTAL
#undef VOCAB_TOTAL_UNSET
#endif
#ifdef VOCAB_TICK_UNSET
#undef TICK
#undef VOCAB_TICK_UNSET
#endif
#ifdef VOCAB_TRIAL_UNSET
#undef TRIAL
#undef VOCAB_TRIAL_UNSET
#endif
#ifdef VOCAB_ROW_UNSET
#undef ROW
#undef VOCAB_ROW_UNSET
#endif
