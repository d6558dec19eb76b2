#!/usr/bin/env bash
# Runs gst-validate (gst-devtools' gst-validate-1.0) over cudabilateral:
# 2 memories x 3 modes x 8 scenarios, each run in its own process with a time
# limit, JOBS at a time.
#   memories: system (nvh264dec ! cudadownload ! video/x-raw ! cudabilateral
#             ! fakesink) and CUDA (nvh264dec ! cudabilateral ! cudadownload
#             ! fakesink), from the 2-second 720p clip data/sample-720p.mp4;
#   modes:    spatial (diameter=9), temporal (temporal-strength=0.8), regions
#             (regions=inside, boxes attached by roiattach, a helper element
#             built from tools/validate/cbfroiattach.c);
#   scenarios: validate's seek_forward, seek_backward (flushing, accurate),
#             reverse_playback and change_state_intensive (NULL <-> PLAYING
#             40 times), and tools/validate's cbf_play_to_eos (EOS at the
#             end of the stream), cbf_pause_resume (pauses, then an EOS event
#             mid-stream), cbf_state_cycles (PLAYING, PAUSED, READY and back,
#             ten times) and cbf_renegotiate (new size and format, three
#             times, through a capsfilter).
# Prints each run as it ends, then a table with a row a run, the distinct
# issues validate reported with where it first detected them, and a last line
#
#   gst-validate: N runs, N passed, N with issues (critical N, warning N,
#     issue N), N failed, N skipped; first detected on cudabilateral: N issues in N runs
#
# (on one line). "failed": timed out, crashed, exited non-zero with no issue
# reported, or a renegotiation run where the element did not get the new
# caps. Issues are counted over all runs; "first detected on": those whose
# first reporter is the element or its pads, not ones that arose upstream
# and that validate reports again on every pad they cross.
# The full output of each run (NAME.log: the pipeline, validate's output,
# GStreamer's warnings), its issues (NAME.issues), the table (summary.txt),
# every issue with its run (issues.txt) and a graph of the pipeline for each
# critical issue (dot/) go under OUTDIR. Exit status 0 only when every run
# passed.
#
# Needs a GStreamer runtime in the environment (gst-launch-1.0 on PATH, its
# libraries found), the plugin on GST_PLUGIN_PATH, and a gst-validate bundle
# built for that GStreamer by tools/validate/build-bundle.sh (default
# .validate/MAJOR.MINOR, chosen by the runtime's version):
# bin/gst-validate-1.0, lib/ (with the libraries the runtime lacks,
# json-glib), lib/gstreamer-1.0/ (the validate tracer and
# tools/validate/cbfroiattach.c built as libcbfroiattach.so),
# share/gstreamer-1.0/validate/scenarios. On the GPU machine, from the
# repository root:
#
#   source .gpu/gst-env.sh
#   GST_PLUGIN_PATH=$PWD/build/gst tools/gst-validate.sh "$OUT/validate"
#
# Without a GPU, the harness itself can be tried with a stand-in element (its
# cudabilateral properties are then left out, and the CUDA-memory pipelines
# skipped when nvh264dec, cudaupload or cudadownload is missing or the
# element takes no CUDA memory):
#
#   CBF_VALIDATE_ELEMENT=videoconvert tools/gst-validate.sh /tmp/validate
#
# Environment (all optional):
#   CBF_VALIDATE_PREFIX     the gst-validate bundle (default: above)
#   CBF_VALIDATE_ELEMENT    element under test (default cudabilateral)
#   CBF_VALIDATE_PROPS      a stand-in element's properties (default none)
#   CBF_VALIDATE_CLIP       H.264 MP4 clip (default data/sample-720p.mp4)
#   CBF_VALIDATE_TIMEOUT    seconds a run may take (default 120: forty
#                           NULL-PLAYING cycles outlast 60 s on a machine
#                           busy with other tests)
#   CBF_VALIDATE_JOBS       runs at a time (default 4; 1 under 8 processors)
#   CBF_VALIDATE_MEMORY     subset of: system cuda
#   CBF_VALIDATE_MODES      subset of: spatial temporal regions
#   CBF_VALIDATE_SCENARIOS  subset of the scenario names above
#   GST_DEBUG               default *:2 (warnings and errors, in the logs)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
usage () { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
if [ $# -ne 1 ] || [ "${1#-}" != "$1" ]; then usage >&2; exit 2; fi
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)

command -v gst-inspect-1.0 >/dev/null ||
  { echo "error: no gst-inspect-1.0: source the GStreamer runtime's environment first" >&2; exit 2; }
gst_version=$(gst-inspect-1.0 --version | sed -n 's/^GStreamer \([0-9]*\.[0-9]*\).*/\1/p' | head -n 1)
prefix=${CBF_VALIDATE_PREFIX:-$here/.validate/$gst_version}
validate=$prefix/bin/gst-validate-1.0
[ -x "$validate" ] ||
  { echo "error: no $validate (gst-validate built for GStreamer $gst_version)" >&2; exit 2; }

element=${CBF_VALIDATE_ELEMENT:-cudabilateral}
clip=$(cd "$here" && readlink -f "${CBF_VALIDATE_CLIP:-data/sample-720p.mp4}")
timeout_s=${CBF_VALIDATE_TIMEOUT:-120}

# The bundle's own libraries are found through its RUNPATH ($ORIGIN); its
# plugins (the tracer, roiattach) and validate's plugins and scenarios
# through these, wherever the bundle was unpacked.
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:+$GST_PLUGIN_PATH:}$prefix/lib/gstreamer-1.0
export GST_VALIDATE_PLUGIN_PATH=$prefix/lib/gstreamer-1.0/validate
export GST_VALIDATE_SCENARIOS_PATH=$here/tools/validate:$prefix/share/gstreamer-1.0/validate/scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Warnings and errors in the logs: validate logs each report as it is made
# with its details (the summary at the end leaves out a warning's), and the
# element its own warnings. Colours would garble the logs.
export GST_DEBUG=${GST_DEBUG:-'*:2'}
export GST_DEBUG_NO_COLOR=1

# (not --exists: it also wants the plugin at least as new as GStreamer)
have () { gst-inspect-1.0 "$1" >/dev/null 2>&1; }
have "$element" || { echo "error: no element $element (GST_PLUGIN_PATH=$GST_PLUGIN_PATH)" >&2; exit 2; }
have roiattach || { echo "error: no roiattach in $prefix/lib/gstreamer-1.0 (tools/validate/cbfroiattach.c)" >&2; exit 2; }
[ -r "$clip" ] || { echo "error: no clip $clip" >&2; exit 2; }

# Scenarios: validate's own (they scale their times to the clip's duration)
# and ours in tools/validate (validate's pause_resume and play_15s need a
# longer clip than the 2 s one; caps renegotiation and ready cycles it has
# not).
all_scenarios="cbf_play_to_eos seek_forward seek_backward reverse_playback
  change_state_intensive cbf_state_cycles cbf_pause_resume cbf_renegotiate"
scenarios=${CBF_VALIDATE_SCENARIOS:-$all_scenarios}
modes=${CBF_VALIDATE_MODES:-spatial temporal regions}
memories=${CBF_VALIDATE_MEMORY:-system cuda}

# Decoding: NVIDIA's decoder where there is one (the GPU machine's runtime has
# no other), downloaded to system memory for the system-memory pipelines;
# elsewhere a software decoder, for the stand-in runs.
if have nvh264dec && have cudadownload; then
  sys_decode="nvh264dec ! cudadownload"
elif have avdec_h264; then
  sys_decode="avdec_h264"
elif have openh264dec; then
  sys_decode="openh264dec"
else
  echo "error: no H.264 decoder (nvh264dec, avdec_h264, openh264dec)" >&2; exit 2
fi
cuda_skip=""
for e in nvh264dec cudaupload cudadownload; do
  have "$e" || cuda_skip="${cuda_skip:+$cuda_skip, }no $e"
done
# (read whole first: grep -q would stop reading, and under pipefail
# gst-inspect-1.0's broken pipe would count as "no")
inspected=$(gst-inspect-1.0 "$element" 2>/dev/null || true)
if [ -z "$cuda_skip" ] && [[ $inspected != *memory:CUDAMemory* ]]; then
  cuda_skip="$element takes no CUDA memory"
fi

# Scenarios that take the pipeline through READY play the clip's H.264
# stream from a file of its own, without the demuxer: qtdemux adds its pad
# anew after each READY, and a pipeline built from a description links a
# demuxer's pad only the first time (the stream then stops, not-linked).
es_scenarios="change_state_intensive cbf_state_cycles"
es_clip=$tmp/clip.h264
GST_DEBUG='*:1' gst-launch-1.0 -q filesrc location="$clip" ! qtdemux ! h264parse ! \
    video/x-h264,stream-format=byte-stream,alignment=au ! filesink location="$es_clip" ||
  { echo "error: could not extract the H.264 stream of $clip" >&2; exit 2; }

props () {
  # The element's settings for a mode; a stand-in element gets
  # CBF_VALIDATE_PROPS in every mode.
  if [ "$element" != cudabilateral ]; then echo "${CBF_VALIDATE_PROPS:-}"; return 0; fi
  case $1 in
    spatial) echo "diameter=9 sigma-color=40 sigma-space=5" ;;
    temporal) echo "diameter=9 sigma-color=40 sigma-space=5 temporal-strength=0.8" ;;
    regions) echo "regions=inside region-feather=16 region-padding=8 diameter=15 sigma-color=35 sigma-space=5" ;;
  esac
}

pipeline () {
  # pipeline MEMORY MODE SCENARIO: the description gst-validate-1.0 builds.
  # The element is named "filter", so that validate's reports name it.
  local mem=$1 mode=$2 scenario=$3 filter pre="" src decode
  filter="$element name=filter $(props "$mode")"
  # Boxes for regions=inside: roiattach attaches two
  # GstVideoRegionOfInterestMeta of type "face" to each buffer (one inside
  # the 1280x720 frame, one reaching past its corner).
  [ "$mode" = regions ] && pre="roiattach name=rois ! "
  src="filesrc location=$clip ! qtdemux ! h264parse"
  case " $es_scenarios " in
    *" $scenario "*) src="filesrc location=$es_clip ! h264parse" ;;
  esac
  if [ "$scenario" = cbf_renegotiate ]; then
    # The capsfilter the scenario changes, after one element that converts
    # and scales: with videoconvert ! videoscale, a change of format and size
    # at once can reach videoscale while videoconvert's buffer in flight
    # still has the old format, and videoscale fails (not-negotiated).
    local reneg="videoconvertscale ! capsfilter name=cbfcaps caps=video/x-raw"
    case $mem in
      system) decode="$sys_decode ! $reneg" ;;
      cuda) decode="nvh264dec ! cudadownload ! video/x-raw ! $reneg ! cudaupload" ;;
    esac
  else
    case $mem in
      system) decode="$sys_decode" ;;
      cuda) decode="nvh264dec" ;;
    esac
  fi
  # The capsfilters pin the memory: cudadownload and the decoder would hand
  # CUDA memory on to an element that prefers it. (Two caps in a row are no
  # valid description: the decoding parts end with an element.)
  case $mem in
    system) echo "$src ! $decode ! video/x-raw ! $pre$filter ! video/x-raw ! fakesink sync=true" ;;
    cuda) echo "$src ! $decode ! video/x-raw(memory:CUDAMemory) ! $pre$filter ! video/x-raw(memory:CUDAMemory) ! cudadownload ! fakesink sync=true" ;;
  esac
}

echo "gst-validate: $(cat "$prefix/VERSION" 2>/dev/null || echo "$validate")"
echo "GStreamer: $(gst-inspect-1.0 --version | sed -n 2p)"
echo "element: $element ($(gst-inspect-1.0 "$element" | sed -n 's/^ *Filename *//p' | head -n 1))"
echo "clip: $clip; per-run limit: ${timeout_s} s; logs: $out"
[ -n "$cuda_skip" ] && echo "CUDA-memory pipelines skipped: $cuda_skip"
echo

run_one () {
  # run_one NAME MEMORY MODE SCENARIO: one gst-validate-1.0 run; its output
  # goes to NAME.log, its outcome to NAME.result (result, the numbers of
  # critical, warning and issue reports and of those first detected on the
  # element, seconds, the first issue), its issues to NAME.issues.
  local name=$1 mem=$2 mode=$3 scenario=$4 desc log rc t0 secs issues c w i e
  local result first
  desc=$(pipeline "$mem" "$mode" "$scenario")
  log=$out/$name.log
  printf 'pipeline: %s\nscenario: %s\n\n' "$desc" "$scenario" > "$log"
  # Renegotiation: validate prints the caps each pad gets, which shows that
  # the element did get new caps.
  local verbose=() dot dot_name
  [ "$scenario" = cbf_renegotiate ] && verbose=(-v props-changes)
  # Validate writes the pipeline's graph here when it reports a critical
  # issue.
  export GST_DEBUG_DUMP_DOT_DIR=$tmp/dot-$name
  mkdir -p "$GST_DEBUG_DUMP_DOT_DIR"
  t0=$EPOCHREALTIME
  set +e
  # -k: a run that ignores SIGTERM (stuck in a state change) is killed.
  timeout -k 10 "$timeout_s" "$validate" "${verbose[@]}" --set-scenario "$scenario" "$desc" \
      >> "$log" 2>&1 < /dev/null
  rc=$?
  set -e
  # Kept: the graphs of reports, not the ones gst-validate-1.0 writes at
  # each state change; their names begin with a time (0:00:01.2...): colons
  # out, for the tools that copy files about.
  for dot in "$GST_DEBUG_DUMP_DOT_DIR"/*validate-report*.dot; do
    [ -e "$dot" ] || continue
    mkdir -p "$out/dot"
    dot_name=${dot##*/}
    mv "$dot" "$out/dot/$name-${dot_name//:/-}"
  done
  secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  # Validate prints an issue as "  <level> : <summary>" with "Detected on
  # <object, object...>" on the next line, the objects in the order they
  # reported it: the first is where it arose (an event that is wrong
  # upstream is reported again by every pad it crosses).
  issues=$(awk '/^ *(critical|warning|issue) : / { sub(/^ */, ""); s = $0; getline;
                sub(/^ *Detected on </, ""); sub(/>$/, ""); print s "\t" $0 }' "$log")
  printf '%s\n' "$issues" | sed '/^$/d' > "$out/$name.issues"
  c=$(grep -c '^critical : ' "$out/$name.issues" || true)
  w=$(grep -c '^warning : ' "$out/$name.issues" || true)
  i=$(grep -c '^issue : ' "$out/$name.issues" || true)
  e=$(awk -F'\t' '$2 ~ /^filter([:,]|$)/' "$out/$name.issues" | wc -l)
  first=$(head -n 1 "$out/$name.issues" | awk -F'\t' '{ split($2, o, ", "); print $1 " (on " o[1] ")" }')
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    result=timeout; first="no end within ${timeout_s} s${first:+; $first}"
  elif [ "$scenario" = cbf_renegotiate ] &&
       [ "$(grep -c 'filter\.GstPad:sink: caps = video/' "$log")" -lt 4 ]; then
    # Fewer than the first caps and the scenario's three changes: the
    # scenario did not do what it is for.
    result=no-reneg; first="the element did not get the 3 new caps${first:+; $first}"
  elif [ $((c + w + i)) -gt 0 ]; then
    result=issues
  elif [ "$rc" -eq 0 ]; then
    result=passed
  else
    result="rc=$rc"
    first=$(grep -m 1 -iE 'error|assert|critical|segmentation|abort' "$log" || true)
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$result" "$c" "$w" "$i" "$e" "$secs" "$first" \
      > "$out/$name.result"
  # Progress, as runs end (the table below is in the matrix's order).
  printf '  %-40s %s, %s s\n' "$name" "$result" "$secs"
}

# Runs go JOBS at a time (each mostly waits on the clock: sinks sync); on
# 2 cores one at a time, so that a busy machine does not make them late.
jobs_max=${CBF_VALIDATE_JOBS:-$(( $(nproc) >= 8 ? 4 : 1 ))}
names=()
total=0
for mem in $memories; do
  for mode in $modes; do
    for scenario in $scenarios; do
      names+=("$mem $mode $scenario")
      total=$((total + 1))
    done
  done
done
echo "$total runs, $jobs_max at a time"
start_all=$SECONDS
for entry in "${names[@]}"; do
  read -r mem mode scenario <<<"$entry"
  name=$mem-$mode-$scenario
  rm -f "$out/$name.result" "$out/$name.issues"
  if [ "$mem" = cuda ] && [ -n "$cuda_skip" ]; then
    printf 'skipped\t-\t-\t-\t-\t-\t%s\n' "$cuda_skip" > "$out/$name.result"
    continue
  fi
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  run_one "$name" "$mem" "$mode" "$scenario" &
done
wait

# The table, in the matrix's order.
table=$out/summary.txt
row () { printf '%-6s %-8s %-22s %-7s %4s %4s %4s %4s %5s  %s\n' "$@"; }
runs=0 passed=0 with_issues=0 failed=0 skipped=0 crit=0 warn=0 iss=0 elem=0 elem_runs=0
: > "$out/issues.txt"
{
  row memory mode scenario result crit warn iss elem secs "first issue (first detected on)"
  for entry in "${names[@]}"; do
    read -r mem mode scenario <<<"$entry"
    name=$mem-$mode-$scenario
    IFS=$'\t' read -r result c w i e secs first < "$out/$name.result"
    row "$mem" "$mode" "$scenario" "$result" "$c" "$w" "$i" "$e" "$secs" "${first:0:110}"
    case $result in
      skipped) skipped=$((skipped + 1)); continue ;;
      passed) passed=$((passed + 1)) ;;
      issues) with_issues=$((with_issues + 1)) ;;
      *) failed=$((failed + 1)) ;;
    esac
    runs=$((runs + 1))
    # Issues count whatever the result (a run that timed out may have
    # reported some first).
    crit=$((crit + c)) warn=$((warn + w)) iss=$((iss + i)) elem=$((elem + e))
    if [ "$e" -gt 0 ]; then elem_runs=$((elem_runs + 1)); fi
    sed "s/\$/\t$name/" "$out/$name.issues" >> "$out/issues.txt"
  done
} > "$table"
cat "$table"

echo
if [ -s "$out/issues.txt" ]; then
  # Each issue once (by its summary and its first object), with the runs
  # that reported it; the whole chain of objects is in issues.txt.
  echo "Issues: validate's summary (first detected on): runs"
  awk -F'\t' '{ split($2, o, ", "); k = $1 " (" o[1] ")";
                n[k]++; r[k] = (n[k] > 1) ? r[k] ", " $3 : $3 }
              END { for (k in n) print "  " k ": " n[k] " runs: " r[k] }' \
      "$out/issues.txt" | sort
  echo
fi
echo "matrix: $((SECONDS - start_all)) s"
summary="gst-validate: $runs runs, $passed passed, $with_issues with issues (critical $crit, warning $warn, issue $iss), $failed failed, $skipped skipped; first detected on $element: $elem issues in $elem_runs runs"
echo "$summary" | tee -a "$table"
[ "$passed" -eq "$runs" ]
