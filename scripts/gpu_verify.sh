#!/usr/bin/env bash
# The whole GPU run, on a fresh GPU host with no network and its own CUDA torch:
#   1. install what the host lacks from the wheels in .whl/ (scripts/fetch_gpu_wheels.sh, run
#      beforehand where the registry is reachable), into a private folder on PYTHONPATH, and put
#      the torchvision wheel in .whl/data/ (read by test_facts, never installed) in .nox/wheels/;
#   2. run the benchmark sweeps on CUDA            -> results/bench-cuda.json
#   3. run every claim on CUDA (= nox -s tests_cuda) -> results/cuda.json
#   4. copy both results files and the logs to $OUT (or to the folder given with --out).
# Steps 2 and 3 both run even if one fails, so whatever was measured comes back; the exit status
# is non-zero if either failed. Commit the two results files to publish the CUDA side of the site.
#
#   bash scripts/gpu_verify.sh [--dry-run] [--out DIR] [--skip-bench] [PYTEST_ARGS...]
#
# --dry-run prints each command instead of running it (tests/costs/test_gpu_verify.py runs it so).
# PYTEST_ARGS replace the default test selection `tests` (e.g. tests/costs -x).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

dry_run=0
skip_bench=0
out_dir=${OUT:-}
tests=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --dry-run) dry_run=1 ;;
        --skip-bench) skip_bench=1 ;;
        --out) out_dir=$2; shift ;;
        *) tests+=("$1") ;;
    esac
    shift
done
[[ ${#tests[@]} -eq 0 ]] && tests=(tests)
python=${PYTHON:-python3}
site=${GPU_SITE:-/tmp/gpu-verify-site}
logs=results/build/gpu-logs  # ignored by git; copied to the output folder
export PYTHONUNBUFFERED=1
# Load only the plugins the suite uses: the host image has others (xdist, cov, mock, hypothesis)
# built against its own pytest, and with warnings as errors any of them could stop the run.
# PYTEST_PLUGINS (not -p) so that the pytest runs some tests start in a subprocess load them too.
export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
export PYTEST_PLUGINS=pytest_benchmark.plugin,pytest_timeout
plugins=(-p no:cacheprovider)

step() {
    echo "+ $*"
    [[ $dry_run -eq 1 ]] && return 0
    "$@"
}

# Run a command with its output also written to a log; return the command's status.
logged() {
    local log=$1
    shift
    echo "+ $* > $log"
    [[ $dry_run -eq 1 ]] && return 0
    "$@" 2>&1 | tee "$log"
    return "${PIPESTATUS[0]}"
}

# 1. Wheels the host lacks (pure-Python or cp312 manylinux x86-64), never from the network.
shopt -s nullglob
wheels=(.whl/*.whl)
shopt -u nullglob
if [[ ${#wheels[@]} -gt 0 ]]; then
    step "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$site" "${wheels[@]}" || exit 3
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
    # The notebook test starts a Jupyter kernel: it must find ipykernel on the same path.
    export JUPYTER_PATH="$site/share/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
else
    echo "gpu_verify: no wheels in .whl/; assuming the host has every package (see scripts/fetch_gpu_wheels.sh)"
fi
# Data, not installed: the torchvision wheel whose model sources test_facts reads (sitekit/facts.py
# looks in .nox/wheels/ and checks its sha256; offline it cannot download it).
shopt -s nullglob
data=(.whl/data/*.whl)
shopt -u nullglob
if [[ ${#data[@]} -gt 0 ]]; then
    step mkdir -p .nox/wheels
    step cp "${data[@]}" .nox/wheels/
fi

# 2. A CUDA device must be visible to this torch; say which, and with what driver.
step "$python" -c "import torch; assert torch.cuda.is_available(), 'no CUDA device visible to torch'; \
print('gpu_verify:', torch.cuda.get_device_name(0), 'torch', torch.__version__, 'CUDA', torch.version.cuda)" || exit 4
if command -v nvidia-smi >/dev/null; then
    step nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
fi

step mkdir -p "$logs"
status=0
# 3. Benchmarks first: the claims in tests/costs read results/bench-cuda.json.
if [[ $skip_bench -eq 0 ]]; then
    logged "$logs/bench.log" "$python" -m pytest "${plugins[@]}" --device cuda --benchmark-enable \
        --timeout 1800 benchmarks || status=5
fi
# 4. Every claim on CUDA, as `nox -s tests_cuda` runs it.
logged "$logs/tests.log" "$python" -m pytest "${plugins[@]}" --device cuda "${tests[@]}" || status=6

# 5. Copy what was recorded to the folder that comes back.
if [[ -n "$out_dir" ]]; then
    step mkdir -p "$out_dir"
    for f in results/cuda.json results/bench-cuda.json "$logs/bench.log" "$logs/tests.log"; do
        if [[ $dry_run -eq 1 || -f "$f" ]]; then
            step cp "$f" "$out_dir/"
        fi
    done
fi
echo "gpu_verify: done (status $status)"
exit $status
