#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Flow-level validation grid: every case at --level=packet and --level=flow, compared.

  utils/flow-validation.py [--out=DIR] [--bin=DIR] [--quick] [--filter=SUBSTR]
                           [--jobs=N] [--timeout=SEC] [--keep] [--list]

What it does. CASES below is a fixed grid of 91 cases: collectives (ring,
halving-doubling and torus all-reduce, pairwise and direct all-to-all, ring all-gather,
reduce-scatter and broadcast) from 4 KiB (latency-bound) to 16 MiB (bandwidth-bound)
and 8 to 256 ranks, on every fabric an example builds by flags: ideal switch, 2- and
3-tier fat-trees each with and without 3:1 oversubscription, torus, mesh
(collective-validation); rail-only collectives (distributed-collective); rail-only and
rail-optimized GPT training iterations, dense and MoE (railonly-llm: the one example
that builds rail-optimized by flags); TopoOpt direct-connect iterations
(topoopt-cluster, its own strategy and topology search); Checkmate's mirrored
all-reduce on an ideal switch and a fat-tree (checkmate-recovery); a data-parallel
training job alone and two such jobs interleaved on one oversubscribed fat-tree
(training-workload --jobs); links failed before and
during the run; three ECMP hash seeds; one TCP and two RDMA (roce) cases; six cases
again with 10 ns of link jitter at packet level (JITTERED: their packet runs lock
equal-rate senders in step at full ports without it). Each case
runs its example twice, --level=flow then --level=packet (the ns-3 packet-level
reference), each with --json=FILE into a temporary folder, reads the `rows` of both
documents and computes the signed error

    error = (flow - packet) / packet        (+0.05: the flow level is 5 % slow)

The packet time is the packet row's `simulated_s` (`iteration_s` for the training
examples, the last iteration's `allreduce_s` for checkmate-recovery), the flow time
the flow row's; twin_s keeps the twin the packet run reports
beside it (for a collective, the same fluid replayed: equal to the flow time).
Every case passes --transport=udp unless its flags name another transport (the
transport column says which). A case whose example has no flow level is marked
`no-flow` and its packet run skipped. Cases run one at a time; --jobs=N runs N.

What it writes, into --out (default results/flow-validation/ of the source tree, which
git ignores):
  flow-validation.csv  one line per case: label, example, fabric, collective,
                       algorithm, ranks, bytes, transport, packet_s, flow_s, error,
                       packet_wall_s, flow_wall_s, status (ok | failed | no-flow),
                       twin_s, the packet run's health (dropped, resent,
                       timeouts, its warning line), flow_overflow (full frames the
                       flow run's fluid put beyond the ports' buffers, summed over
                       the ports), flow_dropped (frames the flow run dropped at full
                       switch ports and re-sent), flow_repaired (frames the flow run
                       lost to a link failure and re-sent), detail (why a case
                       failed), flags
  flow-validation.md   a summary (cases, median |error|, 95th percentile |error| by
                       linear interpolation, max |error|, the cases above 5 %, packet
                       runs with drops / re-sends / timeouts / a warning, which of the
                       packet runs that dropped frames the flow level warned about and
                       the reverse, failures)
                       and the table of cases sorted by fabric
  flow-validation.png  signed error per case, horizontal bars grouped by fabric, with
                       the +-1 % and +-5 % bands (needs matplotlib, which
                       utils/setup.sh installs for /usr/bin/python3; without it the
                       PNG is skipped with a note)
It prints one line per case as it finishes, then the summary and where the files went.

How long it takes (the project's 2-core machine, measured): the full grid 64 s of wall
time one case at a time (54 s of it packet level, 8 s flow level; the longest case,
a 256-rank 3-tier fat-tree ring all-reduce of 16 MiB, 9 s), 34 s with --jobs=2;
--quick (10 small cases, a smoke test) 3 s.

Options:
  --out=DIR        where the three files go (created if missing)
  --bin=DIR        the build folder holding examples/<name>/<name> (default build/ of
                   the source tree)
  --quick          only the cases marked quick (10 small ones, every mlnet fabric)
  --filter=SUBSTR  only the cases whose label contains SUBSTR (with --quick: both)
  --jobs=N         run N cases at a time (default 1; the machine has 2 cores)
  --timeout=SEC    wall seconds one run may take before it is killed and the case
                   marked failed (default 1800)
  --keep           keep the temporary folder of JSON documents and run logs (its
                   path is printed)
  --list           print the selected cases and their flags, run nothing

Exit status: 0 when every selected case ran (no-flow cases included), 1 when a case
failed to run (its stderr's last line is reported, with the ns-3 assert line when
there is one; the other cases still run), 2 for bad arguments (one "error: ..." line).
"""
import argparse
import concurrent.futures
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Case:
    """One grid point: an example and its flags (the level and --json are added)."""

    def __init__(self, label, example, fabric, flags, quick=False, pick=None, note=""):
        self.label = label
        self.example = example
        self.fabric = fabric  # the group the table and the plot sort by
        self.flags = flags.split()
        if example == CM:
            self.transport = "udp"  # checkmate-recovery's job always runs over UDP
        else:
            if not any(f.startswith("--transport=") for f in self.flags):
                self.flags.append("--transport=udp")
            self.transport = next(f.split("=", 1)[1] for f in self.flags
                                  if f.startswith("--transport="))
        self.quick = quick
        self.pick = pick  # a row filter for documents with several rows
        self.note = note

    def flag(self, name, default=None):
        for f in self.flags:
            if f.startswith(f"--{name}="):
                return f.split("=", 1)[1]
        return default


CV = "collective-validation"
CM = "checkmate-recovery"
DC = "distributed-collective"
LLM = "railonly-llm"
TW = "training-workload"
TOPO = "topoopt-cluster"


def cv(label, fabric, flags, **kw):
    return Case(label, CV, fabric, flags, **kw)


# checkmate-recovery: 8 workers and 2 shadows train P = 271,368 parameters for 2
# iterations with Checkmate only (no baseline comparison of schemes).
CHECKMATE = ("--workers=8 --shadows=2 --inputs=256 --hidden=1024 --classes=8 "
             "--iterations=2 --mode=checkmate")


def LAST_ITERATION(row):
    return row.get("iteration") == 1


# Sizes are per rank (all-to-all: per pair). Fat-tree oversubscription r needs (1 + r)
# to divide the radix the helper picks; r=3 works at every size here. Failed links are
# named as in doc/labs/lab1-collectives.md (class:index) or drawn by --failLinks (seeded).
CASES = [
    # --- ideal switch ---------------------------------------------------------------
    cv("ideal/ring-ar/8r/4KiB", "ideal",
       "--fabric=ideal --ranks=8 --collective=allreduce --algorithm=ring --bytes=4KiB",
       quick=True),
    cv("ideal/ring-ar/16r/16MiB", "ideal",
       "--fabric=ideal --ranks=16 --collective=allreduce --algorithm=ring --bytes=16MiB"),
    cv("ideal/ring-ar/64r/16MiB", "ideal",
       "--fabric=ideal --ranks=64 --collective=allreduce --algorithm=ring --bytes=16MiB"),
    cv("ideal/ring-ar/256r/1MiB", "ideal",
       "--fabric=ideal --ranks=256 --collective=allreduce --algorithm=ring --bytes=1MiB"),
    cv("ideal/hd-ar/16r/1MiB", "ideal",
       "--fabric=ideal --ranks=16 --collective=allreduce --algorithm=hd --bytes=1MiB",
       quick=True),
    cv("ideal/hd-ar/64r/16MiB", "ideal",
       "--fabric=ideal --ranks=64 --collective=allreduce --algorithm=hd --bytes=16MiB"),
    cv("ideal/pairwise-a2a/16r/64KiB", "ideal",
       "--fabric=ideal --ranks=16 --collective=alltoall --algorithm=pairwise --bytes=64KiB"),
    cv("ideal/direct-a2a/32r/256KiB", "ideal",
       "--fabric=ideal --ranks=32 --collective=alltoall --algorithm=direct --bytes=256KiB"),
    cv("ideal/direct-a2a/64r/16KiB", "ideal",
       "--fabric=ideal --ranks=64 --collective=alltoall --algorithm=direct --bytes=16KiB"),
    cv("ideal/ring-allgather/16r/4MiB", "ideal",
       "--fabric=ideal --ranks=16 --collective=allgather --algorithm=ring --bytes=4MiB"),
    cv("ideal/ring-reducescatter/32r/4MiB", "ideal",
       "--fabric=ideal --ranks=32 --collective=reducescatter --algorithm=ring --bytes=4MiB"),
    cv("ideal/ring-broadcast/16r/4MiB", "ideal",
       "--fabric=ideal --ranks=16 --collective=broadcast --algorithm=ring --bytes=4MiB"),
    # --- 2-tier fat-tree, non-blocking --------------------------------------------
    cv("fattree2/ring-ar/16r/4KiB", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=16 --collective=allreduce --algorithm=ring "
       "--bytes=4KiB", quick=True),
    cv("fattree2/ring-ar/16r/16MiB", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=16 --collective=allreduce --algorithm=ring "
       "--bytes=16MiB"),
    cv("fattree2/ring-ar/128r/4MiB", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=128 --collective=allreduce --algorithm=ring "
       "--bytes=4MiB"),
    cv("fattree2/ring-ar/16r/4MiB/tcp", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=16 --collective=allreduce --algorithm=ring "
       "--bytes=4MiB --transport=tcp", note="TCP (IPv4 data path)"),
    cv("fattree2/hd-ar/8r/64KiB", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=8 --collective=allreduce --algorithm=hd "
       "--bytes=64KiB"),
    cv("fattree2/hd-ar/32r/4MiB", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=32 --collective=allreduce --algorithm=hd "
       "--bytes=4MiB"),
    cv("fattree2/direct-a2a/16r/1MiB", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=16 --collective=alltoall --algorithm=direct "
       "--bytes=1MiB", quick=True),
    cv("fattree2/direct-a2a/16r/4MiB/rng1", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=16 --collective=alltoall --algorithm=direct "
       "--bytes=4MiB --RngRun=1", note="ECMP hash seed 1"),
    cv("fattree2/direct-a2a/16r/4MiB/rng2", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=16 --collective=alltoall --algorithm=direct "
       "--bytes=4MiB --RngRun=2", note="ECMP hash seed 2"),
    cv("fattree2/direct-a2a/16r/4MiB/rng3", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=16 --collective=alltoall --algorithm=direct "
       "--bytes=4MiB --RngRun=3", note="ECMP hash seed 3"),
    cv("fattree2/direct-a2a/64r/1MiB", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=64 --collective=alltoall --algorithm=direct "
       "--bytes=1MiB"),
    cv("fattree2/pairwise-a2a/32r/256KiB", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=32 --collective=alltoall --algorithm=pairwise "
       "--bytes=256KiB"),
    cv("fattree2/pairwise-a2a/128r/256KiB", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=128 --collective=alltoall --algorithm=pairwise "
       "--bytes=256KiB"),
    cv("fattree2/ring-allgather/32r/1MiB", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=32 --collective=allgather --algorithm=ring "
       "--bytes=1MiB"),
    # --- 2-tier fat-tree, 3:1 oversubscribed ---------------------------------------
    cv("fattree2-os3/ring-ar/16r/4KiB", "fattree-2tier-os",
       "--fabric=fattree --tiers=2 --oversubscription=3 --ranks=16 --collective=allreduce "
       "--algorithm=ring --bytes=4KiB"),
    cv("fattree2-os3/ring-ar/32r/4MiB", "fattree-2tier-os",
       "--fabric=fattree --tiers=2 --oversubscription=3 --ranks=32 --collective=allreduce "
       "--algorithm=ring --bytes=4MiB", quick=True),
    cv("fattree2-os3/hd-ar/32r/16MiB", "fattree-2tier-os",
       "--fabric=fattree --tiers=2 --oversubscription=3 --ranks=32 --collective=allreduce "
       "--algorithm=hd --bytes=16MiB"),
    cv("fattree2-os3/direct-a2a/16r/1MiB", "fattree-2tier-os",
       "--fabric=fattree --tiers=2 --oversubscription=3 --ranks=16 --collective=alltoall "
       "--algorithm=direct --bytes=1MiB"),
    cv("fattree2-os3/direct-a2a/16r/1MiB/roce", "fattree-2tier-os",
       "--fabric=fattree --tiers=2 --oversubscription=3 --ranks=16 --collective=alltoall "
       "--algorithm=direct --bytes=1MiB --transport=roce",
       note="RDMA transport: lossless (PFC, DCQCN)"),
    cv("fattree2-os3/pairwise-a2a/32r/64KiB", "fattree-2tier-os",
       "--fabric=fattree --tiers=2 --oversubscription=3 --ranks=32 --collective=alltoall "
       "--algorithm=pairwise --bytes=64KiB"),
    # --- 3-tier fat-tree, non-blocking --------------------------------------------
    cv("fattree3/ring-ar/32r/4MiB", "fattree-3tier",
       "--fabric=fattree --tiers=3 --ranks=32 --collective=allreduce --algorithm=ring "
       "--bytes=4MiB"),
    cv("fattree3/ring-ar/64r/16MiB", "fattree-3tier",
       "--fabric=fattree --tiers=3 --ranks=64 --collective=allreduce --algorithm=ring "
       "--bytes=16MiB"),
    cv("fattree3/ring-ar/256r/16MiB", "fattree-3tier",
       "--fabric=fattree --tiers=3 --ranks=256 --collective=allreduce --algorithm=ring "
       "--bytes=16MiB"),
    cv("fattree3/hd-ar/64r/1MiB", "fattree-3tier",
       "--fabric=fattree --tiers=3 --ranks=64 --collective=allreduce --algorithm=hd "
       "--bytes=1MiB", quick=True),
    cv("fattree3/hd-ar/128r/4MiB", "fattree-3tier",
       "--fabric=fattree --tiers=3 --ranks=128 --collective=allreduce --algorithm=hd "
       "--bytes=4MiB"),
    cv("fattree3/direct-a2a/32r/64KiB", "fattree-3tier",
       "--fabric=fattree --tiers=3 --ranks=32 --collective=alltoall --algorithm=direct "
       "--bytes=64KiB"),
    cv("fattree3/pairwise-a2a/16r/4KiB", "fattree-3tier",
       "--fabric=fattree --tiers=3 --ranks=16 --collective=alltoall --algorithm=pairwise "
       "--bytes=4KiB"),
    cv("fattree3/ring-allgather/64r/256KiB", "fattree-3tier",
       "--fabric=fattree --tiers=3 --ranks=64 --collective=allgather --algorithm=ring "
       "--bytes=256KiB"),
    # --- 3-tier fat-tree, 3:1 oversubscribed ---------------------------------------
    cv("fattree3-os3/ring-ar/64r/4KiB", "fattree-3tier-os",
       "--fabric=fattree --tiers=3 --oversubscription=3 --ranks=64 --collective=allreduce "
       "--algorithm=ring --bytes=4KiB"),
    cv("fattree3-os3/ring-ar/32r/4MiB", "fattree-3tier-os",
       "--fabric=fattree --tiers=3 --oversubscription=3 --ranks=32 --collective=allreduce "
       "--algorithm=ring --bytes=4MiB"),
    cv("fattree3-os3/hd-ar/64r/16MiB", "fattree-3tier-os",
       "--fabric=fattree --tiers=3 --oversubscription=3 --ranks=64 --collective=allreduce "
       "--algorithm=hd --bytes=16MiB"),
    cv("fattree3-os3/direct-a2a/32r/256KiB", "fattree-3tier-os",
       "--fabric=fattree --tiers=3 --oversubscription=3 --ranks=32 --collective=alltoall "
       "--algorithm=direct --bytes=256KiB"),
    # --- torus (wraparound) ---------------------------------------------------------
    cv("torus2x2x2/hd-ar/64KiB", "torus",
       "--fabric=torus --torusDims=2x2x2 --collective=allreduce --algorithm=hd --bytes=64KiB"),
    cv("torus4x4/ring-ar/4MiB", "torus",
       "--fabric=torus --torusDims=4x4 --collective=allreduce --algorithm=ring --bytes=4MiB"),
    cv("torus8x8/ring-ar/16MiB", "torus",
       "--fabric=torus --torusDims=8x8 --collective=allreduce --algorithm=ring --bytes=16MiB"),
    cv("torus4x4/torus-ar/16MiB", "torus",
       "--fabric=torus --torusDims=4x4 --collective=allreduce --algorithm=torus "
       "--bytes=16MiB", quick=True),
    cv("torus4x4/direct-a2a/256KiB", "torus",
       "--fabric=torus --torusDims=4x4 --collective=alltoall --algorithm=direct "
       "--bytes=256KiB", quick=True),
    cv("torus4x4/ring-broadcast/1MiB", "torus",
       "--fabric=torus --torusDims=4x4 --collective=broadcast --algorithm=ring --bytes=1MiB"),
    cv("torus8x8/torus-ar/4KiB", "torus",
       "--fabric=torus --torusDims=8x8 --collective=allreduce --algorithm=torus --bytes=4KiB"),
    cv("torus8x8/pairwise-a2a/16KiB", "torus",
       "--fabric=torus --torusDims=8x8 --collective=alltoall --algorithm=pairwise "
       "--bytes=16KiB"),
    cv("torus4x4x4/torus-ar/1MiB", "torus",
       "--fabric=torus --torusDims=4x4x4 --collective=allreduce --algorithm=torus "
       "--bytes=1MiB"),
    cv("torus16x16/torus-ar/4MiB", "torus",
       "--fabric=torus --torusDims=16x16 --collective=allreduce --algorithm=torus "
       "--bytes=4MiB"),
    # --- mesh (no wraparound) -------------------------------------------------------
    cv("mesh4x4/ring-ar/4MiB", "mesh",
       "--fabric=mesh --torusDims=4x4 --collective=allreduce --algorithm=ring --bytes=4MiB",
       quick=True),
    cv("mesh4x4/torus-ar/1MiB", "mesh",
       "--fabric=mesh --torusDims=4x4 --collective=allreduce --algorithm=torus --bytes=1MiB"),
    cv("mesh4x4/pairwise-a2a/64KiB", "mesh",
       "--fabric=mesh --torusDims=4x4 --collective=alltoall --algorithm=pairwise "
       "--bytes=64KiB"),
    cv("mesh8x8/hd-ar/1MiB", "mesh",
       "--fabric=mesh --torusDims=8x8 --collective=allreduce --algorithm=hd --bytes=1MiB"),
    cv("mesh8x8/direct-a2a/4KiB", "mesh",
       "--fabric=mesh --torusDims=8x8 --collective=alltoall --algorithm=direct --bytes=4KiB"),
    cv("mesh4x4x4/torus-ar/16MiB", "mesh",
       "--fabric=mesh --torusDims=4x4x4 --collective=allreduce --algorithm=torus "
       "--bytes=16MiB"),
    # --- failed links ---------------------------------------------------------------
    cv("fail/fattree2/ring-ar/16r/4MiB/tor-agg:3", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=16 --collective=allreduce --algorithm=ring "
       "--bytes=4MiB --fail=tor-agg:3", quick=True),
    cv("fail/fattree2/direct-a2a/16r/4MiB/tor-agg:8,9", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=16 --collective=alltoall --algorithm=direct "
       "--bytes=4MiB --fail=tor-agg:9,tor-agg:8"),
    cv("fattree2/hier-ar/64r/g8/4MiB", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=64 --collective=allreduce "
       "--algorithm=hierarchical --groupSize=8 --bytes=4MiB"),
    cv("fail/fattree2/ring-ar/8r/4MiB/tor-agg:3@100us", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=8 --collective=allreduce --algorithm=ring "
       "--bytes=4MiB --fail=tor-agg:3@100us --convergence=50us",
       note="the link fails during the run"),
    cv("fail/fattree2/ring-ar/8r/4MiB/tor-agg:3@100us/conv500us", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=8 --collective=allreduce --algorithm=ring "
       "--bytes=4MiB --fail=tor-agg:3@100us --convergence=500us",
       note="the link fails during the run; routes converge after 500 us"),
    cv("fail/fattree2/ring-ar/8r/4MiB/tor-agg:3@100us/roce", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=8 --collective=allreduce --algorithm=ring "
       "--bytes=4MiB --fail=tor-agg:3@100us --convergence=50us --transport=roce",
       note="the link fails during the run"),
    cv("fail/fattree2/direct-a2a/16r/1MiB/tor-agg:3@50us", "fattree-2tier",
       "--fabric=fattree --tiers=2 --ranks=16 --collective=alltoall --algorithm=direct "
       "--bytes=1MiB --fail=tor-agg:3@50us --convergence=30us",
       note="the link fails during the run"),
    cv("fail/fattree3/ring-ar/32r/1MiB/random:2", "fattree-3tier",
       "--fabric=fattree --tiers=3 --ranks=32 --collective=allreduce --algorithm=ring "
       "--bytes=1MiB --failLinks=2"),
    cv("fail/torus4x4/torus-ar/4MiB/torus:5,31", "torus",
       "--fabric=torus --torusDims=4x4 --collective=allreduce --algorithm=torus "
       "--bytes=4MiB --fail=torus:31,torus:5"),
    cv("fail/torus4x4/ring-ar/4MiB/torus:5,31", "torus",
       "--fabric=torus --torusDims=4x4 --collective=allreduce --algorithm=ring "
       "--bytes=4MiB --fail=torus:31,torus:5"),
    cv("fail/mesh4x4/hd-ar/1MiB/torus:3", "mesh",
       "--fabric=mesh --torusDims=4x4 --collective=allreduce --algorithm=hd "
       "--bytes=1MiB --fail=torus:3"),
    # --- rail-only (distributed-collective, one process; packet level only today) ----
    Case("rail-only/ring-ar/4x8/4MiB", DC, "rail-only",
         "--fabric=railonly --domains=4 --domainSize=8 --collective=allreduce "
         "--algorithm=ring --bytes=4MiB"),
    Case("rail-only/direct-a2a/4x8/64KiB", DC, "rail-only",
         "--fabric=railonly --domains=4 --domainSize=8 --collective=alltoall "
         "--algorithm=direct --bytes=64KiB"),
    # two-level all-reduce: in the HB domains, then along each rail
    Case("rail-only/hier-ar/4x8/16MiB", DC, "rail-only",
         "--fabric=railonly --domains=4 --domainSize=8 --collective=allreduce "
         "--algorithm=hierarchical --bytes=16MiB"),
    # --- GPT training iterations (railonly-llm; packet level only today): 4 HB domains
    # of 8 GPUs, TP 8 x PP 2 x DP 2, the example's default model; --moe adds expert
    # all-to-alls across rails (two-phase through the HB domain on rail-only)
    Case("rail-only/gpt-iteration/4x8", LLM, "rail-only",
         "--fabric=rail-only --domains=4 --domainSize=8 --tp=8 --pp=2 --dp=2"),
    Case("rail-only/gpt-moe-iteration/4x8", LLM, "rail-only",
         "--fabric=rail-only --domains=4 --domainSize=8 --tp=8 --pp=2 --dp=2 --moe"),
    Case("rail-optimized/gpt-moe-iteration/4x8", LLM, "rail-optimized",
         "--fabric=rail-optimized --domains=4 --domainSize=8 --tp=8 --pp=2 --dp=2 --moe"),
    Case("fail/rail-only/gpt-iteration/4x8/rail-switch-3", LLM, "rail-only",
         "--fabric=rail-only --domains=4 --domainSize=8 --tp=8 --pp=2 --dp=2 "
         "--failRailSwitch=3", pick=lambda r: r.get("failure") not in (None, "none"),
         note="the row of the failed run (the example also runs the healthy fabric)"),
    # --- TopoOpt direct-connect (topoopt-cluster): the strategy search's plan ------------
    Case("topoopt/dlrm-iteration/8srv-d2", TOPO, "topoopt",
         "--fabrics=topoopt --servers=8 --degree=2 --model=dlrm --scale=0.1 "
         "--iterations=1 --budget=100"),
    Case("topoopt/bert-iteration/16srv-d4", TOPO, "topoopt",
         "--fabrics=topoopt --servers=16 --degree=4 --model=bert --scale=0.1 "
         "--iterations=1 --budget=100"),
    # --- Checkmate (checkmate-recovery): a real data-parallel job whose ToRs copy the
    # reduced gradients to 2 shadow nodes; the last iteration's gradient all-reduce
    # (1.09 MB), the copies crossing it where they share links
    Case("checkmate/ideal/8w-2s", CM, "ideal", CHECKMATE + " --fabric=ideal",
         pick=LAST_ITERATION),
    Case("checkmate/fattree2/8w-2s/rng1", CM, "fattree-2tier",
         CHECKMATE + " --fabric=fattree --RngRun=1", pick=LAST_ITERATION,
         note="ECMP hash seed 1"),
    Case("checkmate/fattree2/8w-2s/replicate-all/rng3", CM, "fattree-2tier",
         CHECKMATE + " --fabric=fattree --replicate=all --RngRun=3", pick=LAST_ITERATION,
         note="every all-gather message copied; hash seed 3"),
]

# --- Training jobs (training-workload, the shipped mlp-small: two 8 MiB ring
# all-reduces per iteration): one job on a 3:1 fat-tree of 16 ranks, then two jobs of 8
# interleaved on it (--jobPlacement=strided: every ToR holds both jobs' ranks, whose
# rings share its uplinks); job 1's last iteration
TW_OS3 = "--fabric=fattree --radix=8 --oversubscription=3 --ranks=16 --iterations=2"
CASES += [
    Case("training/fattree2-os3/16r", TW, "fattree-2tier-os", TW_OS3,
         pick=LAST_ITERATION),
    Case("multi-job/fattree2-os3/2x8r-strided", TW, "fattree-2tier-os",
         TW_OS3 + " --jobs=2 --jobPlacement=strided",
         pick=lambda r: r.get("job") == 1 and r.get("iteration") == 1,
         note="two jobs sharing the ToR uplinks; job 1's last iteration"),
]

# The cases whose packet runs lock equal-rate senders in step at full drop-tail ports
# (phase effects), again with 10 ns of link jitter at packet level (--linkJitter; the
# flow level has no frames to jitter): flow-level.md, "Lockstep at full ports".
JITTERED = ["fattree2/direct-a2a/16r/4MiB/rng1", "fattree2/direct-a2a/16r/4MiB/rng2",
            "fattree2/direct-a2a/16r/4MiB/rng3", "fattree2-os3/direct-a2a/16r/1MiB",
            "fattree3-os3/hd-ar/64r/16MiB", "fail/fattree2/direct-a2a/16r/4MiB/tor-agg:8,9"]
for _base in [c for c in CASES if c.label in JITTERED]:
    CASES.append(Case(_base.label + "/jitter10ns", _base.example, _base.fabric,
                      " ".join(_base.flags + ["--linkJitter=10ns"]),
                      note=(_base.note + "; " if _base.note else "") + "10 ns link jitter"))
assert len([c for c in CASES if c.label.endswith("/jitter10ns")]) == len(JITTERED)

# Which row fields hold the packet time, the flow time and the twin beside the packet
# run.
FIELDS = {
    CV: dict(packet=["simulated_s"], flow=["simulated_s"], twin=["analytical_s"]),
    DC: dict(packet=["simulated_s"], flow=["simulated_s"], twin=["analytical_s"]),
    LLM: dict(packet=["iteration_s"], flow=["iteration_s"], twin=["twin_iteration_s"]),
    TOPO: dict(packet=["iteration_s"], flow=["iteration_s"], twin=["analytical_iteration_s"]),
    TW: dict(packet=["iteration_s"], flow=["iteration_s"], twin=["analytical_iteration_s"]),
    CM: dict(packet=["allreduce_s"], flow=["allreduce_s"], twin=[]),
}

assert len({c.label for c in CASES}) == len(CASES), "case labels must be unique"

CSV_COLUMNS = ["label", "example", "fabric", "collective", "algorithm", "ranks", "bytes",
               "transport", "packet_s", "flow_s", "error", "packet_wall_s", "flow_wall_s",
               "status", "twin_s", "dropped", "resent", "timeouts",
               "packet_warning", "flow_overflow", "flow_dropped", "flow_repaired", "detail",
               "flags"]


class ArgumentError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise ArgumentError(message)


def parse_args(argv):
    p = Parser(prog="flow-validation.py", add_help=True,
               description=__doc__.split("\n")[0])
    p.add_argument("--out", default=os.path.join(ROOT, "results", "flow-validation"))
    p.add_argument("--bin", default=os.path.join(ROOT, "build"))
    p.add_argument("--quick", action="store_true")
    p.add_argument("--filter", default=None)
    p.add_argument("--jobs", default="1")
    p.add_argument("--timeout", default="1800")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--list", action="store_true")
    args = p.parse_args(argv)
    try:
        args.jobs = int(args.jobs)
    except ValueError:
        raise ArgumentError(f"--jobs={args.jobs!r} is not a whole number; use e.g. --jobs=2")
    if not 1 <= args.jobs <= 64:
        raise ArgumentError(f"--jobs={args.jobs} is out of range; use 1..64")
    try:
        args.timeout = float(args.timeout)
    except ValueError:
        raise ArgumentError(f"--timeout={args.timeout!r} is not a number of seconds")
    if not args.timeout > 0:
        raise ArgumentError(f"--timeout={args.timeout:g} must be positive")
    if args.filter is not None and args.filter == "":
        raise ArgumentError("--filter is empty; give a part of a case label (--list shows them)")
    if args.out == "":
        raise ArgumentError("--out is empty; give a folder")
    return args


def select(args):
    cases = [c for c in CASES if (not args.quick or c.quick)
             and (args.filter is None or args.filter in c.label)]
    if not cases:
        what = f"--filter={args.filter!r}" + (" with --quick" if args.quick else "")
        raise ArgumentError(f"{what} matches no case; --list shows the labels")
    return cases


def binary(bin_dir, example):
    return os.path.join(bin_dir, "examples", example, example)


def last_line(text):
    """stderr's last line; an ns-3 assert's line too when the last line is not it."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    if not lines:
        return ""
    asserts = [l for l in lines if l.startswith(("assert failed", "msg=", "NS_FATAL"))]
    if asserts and asserts[-1] != lines[-1]:
        return f"{lines[-1]} [{asserts[-1]}]"
    return lines[-1]


def run_level(case, level, bin_dir, tmp, timeout):
    """Run one level of a case. Returns a dict: ok, doc, wall, stdout, stderr, message."""
    safe = "".join(ch if ch.isalnum() or ch in "-._" else "_" for ch in case.label)
    js = os.path.join(tmp, f"{safe}.{level}.json")
    cmd = [binary(bin_dir, case.example), *case.flags, f"--level={level}", f"--json={js}",
           "--quiet"]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired as e:
        wall = time.monotonic() - t0
        return dict(ok=False, wall=wall, stdout=e.stdout or "", stderr=e.stderr or "",
                    message=f"timed out after {timeout:g} s (--timeout)", cmd=cmd)
    wall = time.monotonic() - t0
    with open(os.path.join(tmp, f"{safe}.{level}.log"), "w") as f:
        f.write(" ".join(cmd) + "\n--- stdout\n" + p.stdout + "--- stderr\n" + p.stderr)
    res = dict(ok=False, wall=wall, stdout=p.stdout, stderr=p.stderr, cmd=cmd)
    if p.returncode != 0:
        res["message"] = last_line(p.stderr) or f"exit {p.returncode}, nothing on stderr"
        res["rc"] = p.returncode
        return res
    try:
        with open(js) as f:
            res["doc"] = json.load(f)
    except (OSError, ValueError) as e:
        res["message"] = f"no readable JSON document ({e})"
        return res
    res["ok"] = True
    return res


def pick_row(case, doc, level):
    rows = doc.get("rows")
    if not isinstance(rows, list) or not rows:
        raise ValueError(f"{level}: the document has no rows")
    if case.pick:
        rows = [r for r in rows if case.pick(r)]
    if len(rows) != 1:
        raise ValueError(f"{level}: {len(rows)} rows match, expected one")
    level_meta = (doc.get("meta") or {}).get("level")
    if level_meta is not None and level_meta != level:
        raise ValueError(f"{level}: the document's meta.level is {level_meta!r}")
    return rows[0]


def first_number(row, fields):
    for f in fields:
        v = row.get(f)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            return f, float(v)
    return None, None


def describe(case, row):
    """fabric-independent columns: collective, algorithm, ranks, bytes."""
    if case.example in (CV, DC):
        return (row.get("collective", case.flag("collective", "")),
                row.get("algorithm", case.flag("algorithm", "")),
                row.get("ranks", ""), row.get("bytes", ""))
    if case.example == LLM:
        return ("iteration", row.get("model", "gpt"), row.get("gpus", ""), "")
    if case.example == CM:
        return ("allreduce", "ring+checkmate", int(case.flag("workers")), "")
    if case.example == TW:
        return ("iteration", row.get("workload", ""), int(case.flag("ranks")), "")
    ranks = case.flag("servers", "")
    return ("iteration", row.get("model", case.flag("model", "")), ranks, "")


def health_dict(row, doc):
    """A run's health: its row's, or the document's one-run section ({} if neither)."""
    h = row.get("health") if isinstance(row.get("health"), dict) else None
    if h is None and isinstance(doc.get("health"), dict):
        h = doc["health"]
    return h or {}


def health_of(row, doc, stdout):
    h = health_dict(row, doc)
    warnings = [l[len("warning:"):].strip() for l in stdout.splitlines()
                if l.startswith("warning:")]
    warning = h.get("warning") or (warnings[0] if warnings else "")
    return dict(dropped=h.get("dropped", ""), resent=h.get("resent", ""),
                timeouts=h.get("timeouts", ""), packet_warning=warning)


def flow_overflow_of(row, doc):
    """Full frames the flow run's fluid put beyond the ports' buffers ("" if unreported)."""
    return health_dict(row, doc).get("fluid_overflow", "")


def flow_dropped_of(row, doc):
    """Frames the flow run dropped at full switch ports and re-sent ("" if unreported)."""
    return health_dict(row, doc).get("fluid_repaired_after_drops", "")


def flow_repaired_of(row, doc):
    """Frames the flow run lost to link failures and re-sent ("" if unreported)."""
    return health_dict(row, doc).get("fluid_repaired_after_failures", "")


def ranks_of(case):
    """The rank count the flags ask for ("" when the example decides it)."""
    if case.flag("ranks"):
        return int(case.flag("ranks"))
    if case.flag("workers"):
        return int(case.flag("workers"))
    if case.flag("torusDims"):
        return math.prod(int(k) for k in case.flag("torusDims").split("x"))
    if case.flag("domains") and case.flag("domainSize"):
        return int(case.flag("domains")) * int(case.flag("domainSize"))
    return int(case.flag("servers")) if case.flag("servers") else ""


def run_case(case, args, tmp):
    rec = dict(label=case.label, example=case.example, fabric=case.fabric,
               transport=case.transport, collective=case.flag("collective", "iteration"),
               algorithm=case.flag("algorithm", case.flag("model", "")),
               ranks=ranks_of(case), bytes=case.flag("bytes", ""),
               packet_s="", flow_s="", error="", packet_wall_s="", flow_wall_s="",
               status="failed", twin_s="", dropped="", resent="",
               timeouts="", packet_warning="", flow_overflow="", flow_dropped="",
               flow_repaired="",
               detail=case.note,
               flags=" ".join(case.flags))
    if not os.access(binary(args.bin, case.example), os.X_OK):
        rec["detail"] = f"{binary(args.bin, case.example)} is not built"
        return rec
    flow = run_level(case, "flow", args.bin, tmp, args.timeout)
    rec["flow_wall_s"] = round(flow["wall"], 3)
    if not flow["ok"] and "has no flow level" in flow.get("message", ""):
        rec["status"] = "no-flow"
        rec["detail"] = flow["message"].removeprefix("error: ")
        return rec
    packet = run_level(case, "packet", args.bin, tmp, args.timeout)
    rec["packet_wall_s"] = round(packet["wall"], 3)
    fields = FIELDS[case.example]
    problems = []
    p = f = None
    # Whatever one level measured is kept even when the other failed.
    if packet["ok"]:
        try:
            prow = pick_row(case, packet["doc"], "packet")
            coll, alg, ranks, nbytes = describe(case, prow)
            rec.update(collective=coll, algorithm=alg, ranks=ranks, bytes=nbytes)
            rec.update(health_of(prow, packet["doc"], packet["stdout"]))
            _, p = first_number(prow, fields["packet"])
            _, twin = first_number(prow, fields["twin"])
            rec["twin_s"] = twin if twin is not None else ""
            if p is None or p <= 0:
                problems.append(f"packet: no positive {'/'.join(fields['packet'])} in the row")
                p = None
            else:
                rec["packet_s"] = p
        except ValueError as e:
            problems.append(str(e))
    else:
        problems.append(f"packet: {packet['message']}")
    if flow["ok"]:
        try:
            frow = pick_row(case, flow["doc"], "flow")
            rec["flow_overflow"] = flow_overflow_of(frow, flow["doc"])
            rec["flow_repaired"] = flow_repaired_of(frow, flow["doc"])
            rec["flow_dropped"] = flow_dropped_of(frow, flow["doc"])
            _, f = first_number(frow, fields["flow"])
            if f is None:
                problems.append(f"flow: no {' or '.join(fields['flow'])} in the row")
            else:
                rec["flow_s"] = f
        except ValueError as e:
            problems.append(str(e))
    else:
        problems.insert(0, f"flow: {flow['message']}")
    if problems:
        rec["detail"] = "; ".join(problems)
        return rec
    rec.update(error=(f - p) / p, status="ok")
    return rec


# ------------------------------------------------------------------------- outputs

def abs_errors(records):
    return sorted(abs(r["error"]) for r in records if r["status"] == "ok")


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def summary(records):
    ok = [r for r in records if r["status"] == "ok"]
    errs = abs_errors(records)
    worst = max(ok, key=lambda r: abs(r["error"])) if ok else None
    return dict(
        cases=len(records), ok=len(ok),
        failed=[r for r in records if r["status"] == "failed"],
        noflow=[r for r in records if r["status"] == "no-flow"],
        median=percentile(errs, 0.5), p95=percentile(errs, 0.95),
        max=abs(worst["error"]) if worst else float("nan"), worst=worst,
        above5=sorted((r for r in ok if abs(r["error"]) > 0.05),
                      key=lambda r: -abs(r["error"])),
        dropped=[r for r in records if r["status"] == "ok" and positive(r["dropped"])],
        overflowed=[r for r in records if r["status"] == "ok" and positive(r["flow_overflow"])],
        unhealthy=[r for r in records if r["status"] == "ok" and
                   (r["packet_warning"] or any(positive(r[k])
                                               for k in ("dropped", "resent", "timeouts")))])


def positive(x):
    return isinstance(x, (int, float)) and x > 0


def pct(x, signed=False):
    if x == "" or x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{100 * x:+.2f} %" if signed else f"{100 * x:.2f} %"


def secs(x):
    if x == "" or x is None:
        return "-"
    for scale, unit in ((1, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if abs(x) >= scale:
            return f"{x / scale:.4g} {unit}"
    return f"{x:.3g} s"


def size(b):
    if b == "" or b is None:
        return "-"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if isinstance(b, int) and b >= scale and b % scale == 0:
            return f"{b // scale} {unit}"
    return str(b)


def summary_lines(s, total_wall, packet_wall, flow_wall):
    lines = [
        f"cases: {s['cases']} ({s['ok']} compared, {len(s['failed'])} failed, "
        f"{len(s['noflow'])} without a flow level)",
        f"median |error|: {pct(s['median'])}",
        f"95th percentile |error|: {pct(s['p95'])}",
        f"max |error|: {pct(s['max'])}" + (f" ({s['worst']['label']})" if s["worst"] else ""),
        f"cases above 5 %: {len(s['above5'])}",
    ]
    lines += [f"  {r['label']}: {pct(r['error'], True)}" for r in s["above5"]]
    if s["unhealthy"]:
        lines.append(f"packet runs with drops, re-sends, timeouts or a warning: "
                     f"{len(s['unhealthy'])}")
        for r in s["unhealthy"]:
            bits = [f"{k} {r[k]}" for k in ("dropped", "resent", "timeouts")
                    if positive(r[k])]
            if r["packet_warning"]:
                bits.append(f"warning: {r['packet_warning']}")
            lines.append(f"  {r['label']}: " + "; ".join(bits))
    both = [r for r in s["dropped"] if positive(r["flow_overflow"])]
    lines.append(f"packet runs that dropped frames: {len(s['dropped'])}; flow runs whose "
                 f"fluid overfilled a buffer: {len(s['overflowed'])}; both: {len(both)}")
    lines += [f"  dropped at full ports at both levels: {r['label']} (packet "
              f"{r['dropped']}, flow {r['flow_dropped']})"
              for r in s["dropped"] if positive(r["flow_dropped"])]
    lines += [f"  dropped, lost and repaired at the flow level too: {r['label']} (dropped "
              f"{r['dropped']}, flow {r['flow_repaired']})"
              for r in s["dropped"] if positive(r["flow_repaired"])]
    lines += [f"  dropped, not warned: {r['label']} (dropped {r['dropped']})"
              for r in s["dropped"]
              if not positive(r["flow_overflow"]) and not positive(r["flow_repaired"])
              and not positive(r["flow_dropped"])]
    lines += [f"  overfilled at the flow level, none dropped at packet level: {r['label']} "
              f"(overflow {r['flow_overflow']} frames, flow dropped "
              f"{r['flow_dropped'] or 0})"
              for r in s["overflowed"] if not positive(r["dropped"])]
    if s["noflow"]:
        lines.append("no flow level yet (packet run skipped):")
        lines += [f"  {r['label']} ({r['example']})" for r in s["noflow"]]
    if s["failed"]:
        lines.append("failed:")
        lines += [f"  {r['label']}: {r['detail']}" for r in s["failed"]]
    lines.append(f"wall: {total_wall:.0f} s in all, {packet_wall:.0f} s packet level, "
                 f"{flow_wall:.0f} s flow level")
    return lines


def write_csv(path, records):
    with open(path + ".partial", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        w.writeheader()
        for r in records:
            w.writerow({k: (f"{r[k]:.9g}" if isinstance(r[k], float) else r[k])
                        for k in CSV_COLUMNS})
    os.replace(path + ".partial", path)


def fabric_order(records):
    order = []
    for c in CASES:
        if c.fabric not in order:
            order.append(c.fabric)
    return {f: i for i, f in enumerate(order)}


def sorted_by_fabric(records):
    rank = fabric_order(records)
    index = {c.label: i for i, c in enumerate(CASES)}
    return sorted(records, key=lambda r: (rank.get(r["fabric"], 99), index.get(r["label"], 0)))


def md_cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def write_md(path, records, s, lines, command, bin_dir):
    out = ["# Flow-level validation: flow vs packet level", "",
           f"`{command}` ({time.strftime('%Y-%m-%d %H:%M')}, binaries in `{bin_dir}`).",
           "Signed error = (flow − packet) / packet: packet = ns-3 packet level (the "
           "reference), flow = `--level=flow`.", "", "## Summary", ""]
    for line in lines:
        out.append(("  - " + line.strip()) if line.startswith("  ") else ("- " + line))
    out += ["", "## Cases (by fabric)", "",
            "| fabric | case | example | collective | algorithm | ranks | bytes | transport "
           "| packet | flow | error | wall packet | wall flow | status | notes |",
           "|---|---|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|---|---|"]
    for r in sorted_by_fabric(records):
        notes = []
        for k in ("dropped", "resent", "timeouts"):
            if positive(r[k]):
                notes.append(f"{k} {r[k]}")
        if r["packet_warning"]:
            notes.append("warning: " + r["packet_warning"])
        if positive(r["flow_overflow"]):
            notes.append(f"flow overflow {r['flow_overflow']}")
        if positive(r["flow_dropped"]):
            notes.append(f"flow dropped and re-sent {r['flow_dropped']}")
        if positive(r["flow_repaired"]):
            notes.append(f"flow lost and re-sent {r['flow_repaired']}")
        if r["detail"]:
            notes.append(r["detail"])
        wall_p = f"{r['packet_wall_s']:.1f} s" if r["packet_wall_s"] != "" else "-"
        wall_f = f"{r['flow_wall_s']:.1f} s" if r["flow_wall_s"] != "" else "-"
        out.append("| " + " | ".join(md_cell(x) for x in [
            r["fabric"], r["label"], r["example"], r["collective"], r["algorithm"], r["ranks"],
            size(r["bytes"]), r["transport"], secs(r["packet_s"]), secs(r["flow_s"]),
            pct(r["error"], True), wall_p, wall_f, r["status"], "; ".join(notes)]) + " |")
    out.append("")
    with open(path + ".partial", "w") as f:
        f.write("\n".join(out))
    os.replace(path + ".partial", path)


def write_png(path, records):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed; utils/setup.sh installs python3-matplotlib"
    recs = sorted_by_fabric(records)
    n = len(recs)
    fig, ax = plt.subplots(figsize=(10, max(3.0, 0.24 * n + 1.6)))
    ok_errs = [100 * r["error"] for r in recs if r["status"] == "ok"]
    span = max([6.0] + [abs(e) * 1.1 for e in ok_errs])
    ax.axvspan(-5, 5, color="#fde8c8", zorder=0, label="±5 %")
    ax.axvspan(-1, 1, color="#c8e6c9", zorder=1, label="±1 %")
    ax.axvline(0, color="black", lw=0.8, zorder=2)
    ys, labels = [], []
    groups = []
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    y = 0
    fabric = None
    for r in recs:
        if r["fabric"] != fabric:
            if fabric is not None:
                y += 0.6
            fabric = r["fabric"]
            groups.append([fabric, y, y])
        groups[-1][2] = y
        color = colors[(len(groups) - 1) % len(colors)]
        if r["status"] == "ok":
            e = 100 * r["error"]
            ax.barh(y, e, color=color, height=0.7, zorder=3)
            ax.text(e + (0.01 * span if e >= 0 else -0.01 * span), y, f"{e:+.1f}",
                    va="center", ha="left" if e >= 0 else "right", fontsize=6, zorder=4)
        else:
            ax.text(0.01 * span, y, r["status"], va="center", ha="left", fontsize=6,
                    color="#b71c1c", zorder=4)
        ys.append(y)
        labels.append(r["label"])
        y += 1
    ax.set_yticks(ys)
    ax.set_yticklabels(labels, fontsize=6)
    ax.set_ylim(y - 0.4, -0.6)
    for name, y0, y1 in groups:
        ax.axhline(y0 - 0.8, color="#9e9e9e", lw=0.5, zorder=2)
        ax.text(span * 0.98, (y0 + y1) / 2, name, ha="right", va="center", fontsize=8,
                color="#424242", zorder=4)
    ax.set_xlim(-span, span)
    ax.set_xlabel("signed error (flow − packet) / packet  [%]")
    ax.set_title(f"Flow level vs packet level, {len(ok_errs)} of {n} cases compared",
                 fontsize=10)
    ax.legend(loc="best", fontsize=7)
    fig.tight_layout()
    fig.savefig(path + ".partial.png", dpi=130)
    plt.close(fig)
    os.replace(path + ".partial.png", path)
    return None


# ---------------------------------------------------------------------------- main

def main(argv):
    try:
        args = parse_args(argv)
        cases = select(args)
        if args.list:
            for c in cases:
                print(f"{c.label}  [{c.example}, {c.fabric}]  {' '.join(c.flags)}")
            return 0
        args.bin = os.path.abspath(args.bin)
        built = {c.example for c in cases if os.access(binary(args.bin, c.example), os.X_OK)}
        if not built:
            raise ArgumentError(f"--bin={args.bin}: no example of the grid is built there "
                                f"(looked for {binary(args.bin, cases[0].example)}); build "
                                "first (utils/build.sh) or point --bin at the build folder")
        out = os.path.abspath(args.out)
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as e:
            raise ArgumentError(f"--out={args.out}: cannot create the folder ({e.strerror})")
        if not os.access(out, os.W_OK):
            raise ArgumentError(f"--out={args.out}: the folder is not writable")
    except ArgumentError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    tmp = tempfile.mkdtemp(prefix="flow-validation-")
    print(f"flow-validation: {len(cases)} cases, {args.jobs} at a time, binaries in {args.bin}",
          flush=True)
    t0 = time.monotonic()
    lock = threading.Lock()
    done = [0]
    records = {}

    def one(case):
        rec = run_case(case, args, tmp)
        with lock:
            done[0] += 1
            records[case.label] = rec
            if rec["status"] == "ok":
                what = (f"packet {secs(rec['packet_s'])}, flow {secs(rec['flow_s'])}, "
                        f"error {pct(rec['error'], True)}")
            else:
                what = f"{rec['status']}: {rec['detail']}"
            walls = ", ".join(f"{k.split('_')[0]} {rec[k]:.1f} s"
                              for k in ("packet_wall_s", "flow_wall_s") if rec[k] != "")
            print(f"[{done[0]}/{len(cases)}] {case.label}: {what}"
                  + (f" (wall: {walls})" if walls else ""), flush=True)

    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for fut in [pool.submit(one, c) for c in cases]:
                fut.result()
    except KeyboardInterrupt:
        print(f"interrupted; partial JSON documents are in {tmp}", file=sys.stderr)
        return 1
    total = time.monotonic() - t0
    recs = [records[c.label] for c in cases]
    packet_wall = sum(r["packet_wall_s"] for r in recs if r["packet_wall_s"] != "")
    flow_wall = sum(r["flow_wall_s"] for r in recs if r["flow_wall_s"] != "")
    s = summary(recs)
    lines = summary_lines(s, total, packet_wall, flow_wall)
    command = "utils/flow-validation.py " + " ".join(argv)
    csv_path = os.path.join(out, "flow-validation.csv")
    md_path = os.path.join(out, "flow-validation.md")
    png_path = os.path.join(out, "flow-validation.png")
    write_csv(csv_path, recs)
    write_md(md_path, recs, s, lines, command.strip(), args.bin)
    png_note = write_png(png_path, recs)
    print()
    for l in lines:
        print(l)
    print(f"table: {csv_path}")
    print(f"report: {md_path}")
    print(f"plot: {png_path}" if png_note is None else f"plot: none ({png_note})")
    if args.keep:
        print(f"documents and logs: {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if s["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
