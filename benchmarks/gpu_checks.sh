#!/usr/bin/env bash
# GPU checks for ndd-migrate, run once on a machine with an NVIDIA GPU, from the repository root:
#
#     bash benchmarks/gpu_checks.sh [--quick]
#
# 1. makes DALI importable: already installed, else wheels carried in .whl/ (or reassembled from
#    split parts, see docs/benchmarks.md "GPU checks"), else `pip install -e '.[verify]'`;
# 2. `ndd-migrate verify --device gpu --capture` on every fixture with a case.json: native GPU on
#    both sides, random states aligned, two epochs; says per fixture whether the outputs are
#    bit-exact, else the largest absolute error per output (the tolerance that would be needed),
#    and whether the captured run equals the eager one;
# 3. the GPU path of our GPU-aware whole programs (benchmarks/gpu_programs.py: tests/programs/*.py
#    with a `# gpu:` line, migrated and run before and after natively; they must print the same);
# 4. the throughput benchmark with --device gpu at batch 8/32/128 (pipeline, eager, capture=True).
#
# Everything goes to $OUT (if set, else ./gpu-checks-out): env.txt, verify_<fixture>.json,
# verify_summary.txt, programs_gpu.txt, bench_gpu.json, bench.log and benchmarks.md (docs/benchmarks.md with the GPU
# block filled in; bring it back with
# `python benchmarks/bench_verify_throughput.py --import-block OUT/benchmarks.md`).
# Designed to finish in under 8 minutes on an H200 machine; --quick (one batch size, 3 runs,
# smaller data) for a smoke test. Exit code: 0 all equal and measured, 1 a difference or a failed
# measurement, 2 could not run at all.
set -uo pipefail

cd "$(dirname "$0")/.."
REPO=$(pwd)
OUT_DIR=${OUT:-$REPO/gpu-checks-out}
mkdir -p "$OUT_DIR"
PY=${PYTHON:-python3}
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
START=$SECONDS
STATUS=0

log() { echo "[gpu_checks $((SECONDS - START))s] $*" | tee -a "$OUT_DIR/gpu_checks.log"; }

# ------------------------------------------------------------------------------------------------
# 1. DALI and the verify extra

SITE=/tmp/ndd-site
# DALI and what it needs beyond a CUDA/PyTorch image (numpy, six, packaging, pyyaml, typer, rich,
# typing-extensions are there); libnvcomp is optional (decoders.inflate, TIFF only).
WHEELS="nvidia-dali-cuda120 nvidia-nvimgcodec-cu12 nvidia-nvjpeg-cu12 libcst optree nvtx makefun gast astunparse"
PARTS=${NDD_WHEEL_PARTS:-/tmp/ndd-wheel-parts}

have_dali() { "$PY" -c "import nvidia.dali.experimental.dynamic, libcst" >/dev/null 2>&1; }

export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"
if ! have_dali; then
    if [ ! -d .whl ] && ls "$PARTS"/part-* >/dev/null 2>&1; then
        log "reassembling wheels from $PARTS"
        mkdir -p .whl && cat "$PARTS"/part-* | tar -x -C .whl || { log "bad wheel parts"; exit 2; }
    fi
    if ls .whl/*.whl >/dev/null 2>&1; then
        log "installing wheels from .whl/ into $SITE"
        names=$WHEELS
        ls .whl/nvidia_libnvcomp_cu12-*.whl >/dev/null 2>&1 && names="$names nvidia-libnvcomp-cu12"
        "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --find-links .whl --target "$SITE" $names 2>&1 | tail -5 | tee -a "$OUT_DIR/gpu_checks.log"
        export PYTHONPATH="$SITE:$PYTHONPATH"
    else
        log "no .whl/: pip install -e '.[verify]' (needs a package index)"
        timeout 300 "$PY" -m pip install -q -e '.[verify]' 2>&1 | tail -5 | tee -a "$OUT_DIR/gpu_checks.log"
    fi
fi
if ! have_dali; then
    log "DALI is not importable; see docs/benchmarks.md 'GPU checks' for the wheels to carry"
    "$PY" -c "import nvidia.dali.experimental.dynamic" 2>&1 | tail -3 | tee -a "$OUT_DIR/gpu_checks.log"
    exit 2
fi

{
    date -u +"date: %Y-%m-%d %H:%M UTC"
    "$PY" -c "import sys, nvidia.dali as d; from nvidia.dali import backend as b; print('python', sys.version.split()[0], '| DALI', d.__version__, '| GPUs', b.GetCUDADeviceCount())"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    echo "cpus: $(nproc)"
} | tee "$OUT_DIR/env.txt"
if ! "$PY" -c "from nvidia.dali import backend as b; raise SystemExit(b.GetCUDADeviceCount() == 0)"; then
    log "DALI sees no GPU; stopping"
    exit 2
fi

# ------------------------------------------------------------------------------------------------
# 2. verify --device gpu on every fixture

DATA=$(mktemp -d /tmp/ndd-fixture-data.XXXX)
"$PY" -m fixtures.datasets "$DATA" >/dev/null || { log "dataset generation failed"; exit 2; }
for case_file in fixtures/*/case.json; do
    name=$(basename "$(dirname "$case_file")")
    dir=$(dirname "$case_file")
    # a case without a reader gives "iterations"; the others run two epochs (as the tests do)
    read -r func batch steps args < <("$PY" - "$case_file" "$DATA" <<'EOF'
import json, sys
case = json.load(open(sys.argv[1]))
data = f"{sys.argv[2]}/{case['dataset']}"
args = {k: v.replace("{data}", data) if isinstance(v, str) else v for k, v in case["args"].items()}
steps = f"--iterations={case['iterations']}" if case.get("iterations") else "--epochs=2"
print(case["function"], case["batch_size"], steps, json.dumps(args, separators=(",", ":")))
EOF
)
    log "verify $name (native GPU, --capture)"
    timeout 150 "$PY" -m ndd_migrate.verify "$dir/pipeline.py" "$dir/migrated.py" --pipeline "$func" \
        --args "$args" --batch-size "$batch" "$steps" --device gpu --capture --timeout 120 \
        --output-format json --report "$OUT_DIR/verify_$name.json" >/dev/null 2>>"$OUT_DIR/gpu_checks.log"
    code=$?
    log "  exit $code"
    [ "$code" -ne 0 ] && STATUS=1
done

"$PY" - "$OUT_DIR" <<'EOF' | tee "$OUT_DIR/verify_summary.txt"
"""One line per fixture: bit-exact or the largest error per output; capture check."""
import glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "verify_*.json"))):
    name = os.path.basename(path)[7:-5]
    try:
        doc = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"{name}: no report ({e})")
        continue
    for pair in doc.get("pairs", []):
        if pair.get("error"):
            print(f"{name}: {pair['verdict']}: {pair['error'].get('message', '')[:300]}")
            continue
        outs = pair.get("outputs", [])
        exact = all(o.get("samples_equal") == o.get("samples_compared") for o in outs)
        detail = "bit-exact" if exact else "; ".join(
            f"out{i}: {o.get('samples_equal')}/{o.get('samples_compared')} equal, "
            f"max abs {o.get('max_abs_error')}, max rel {o.get('max_rel_error')}"
            for i, o in enumerate(outs)
        )
        cap = (pair.get("capture") or {}).get("detail", "capture not checked")
        print(f"{name}: {pair['verdict']} on {pair.get('device')} "
              f"({pair.get('iterations')} steps x {pair.get('batch_size')}): {detail}; {cap}")
    if doc.get("error"):
        print(f"{name}: {doc['error'].get('message', '')[:300]}")
EOF

# ------------------------------------------------------------------------------------------------
# 3. whole programs on their GPU path

log "whole programs on the GPU"
timeout 120 "$PY" benchmarks/gpu_programs.py --out "$OUT_DIR/programs_gpu.txt" 2>&1 | tee -a "$OUT_DIR/gpu_checks.log"
[ "${PIPESTATUS[0]}" -ne 0 ] && STATUS=1

# ------------------------------------------------------------------------------------------------
# 4. throughput, native GPU

cp docs/benchmarks.md "$OUT_DIR/benchmarks.md" 2>/dev/null || true
if [ "$QUICK" = 1 ]; then
    BENCH_OPTS=(--batch-sizes 32 --runs 3 --scale 0.25)
else
    BENCH_OPTS=(--batch-sizes 8 32 128 --runs 5)
fi
left=$((450 - (SECONDS - START)))
if [ "$left" -lt 60 ]; then
    log "only ${left}s left of the 8-minute budget: benchmark skipped"
    exit 1
fi
log "throughput benchmark, --device gpu (${left}s left)"
timeout "$left" "$PY" benchmarks/bench_verify_throughput.py --device gpu "${BENCH_OPTS[@]}" \
    --timeout 150 --json "$OUT_DIR/bench_gpu.json" --docs "$OUT_DIR/benchmarks.md" \
    2>&1 | tee "$OUT_DIR/bench.log"
[ "${PIPESTATUS[0]}" -ne 0 ] && STATUS=1
log "done, exit $STATUS"
exit $STATUS
