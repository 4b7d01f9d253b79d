#!/usr/bin/env bash
# Download, here (with the package registry), the wheels a GPU host needs for scripts/gpu_verify.sh:
# exactly the pins `scripts/gpu_wheels.py` computes from requirements/lock.txt, built for the GPU
# image's CPython 3.12 on x86-64 Linux (pure-Python ones are py3-none-any). They land in .whl/
# (ignored by git), which travels to the GPU host with the working tree. One more wheel is data,
# never installed: the pinned torchvision wheel (sitekit/facts.py: name and sha256) whose model
# sources test_facts reads; it goes to .whl/data/, and gpu_verify.sh puts it in .nox/wheels/.
#
#   bash scripts/fetch_gpu_wheels.sh            # then: bash scripts/gpu_verify.sh on the GPU host
#   bash scripts/fetch_gpu_wheels.sh --dry-run  # print the pip commands only
set -euo pipefail
cd "$(dirname "$0")/.."

dry_run=0
[[ "${1:-}" == "--dry-run" ]] && dry_run=1
python=${PYTHON:-.nox/site/bin/python}
[[ -x "$python" ]] || python=python3
dest=.whl

platforms=()
for tag in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64 \
    manylinux1_x86_64 manylinux_2_24_x86_64 manylinux_2_31_x86_64 manylinux_2_34_x86_64 manylinux_2_35_x86_64; do
    platforms+=(--platform "$tag")
done

mapfile -t specs < <("$python" scripts/gpu_wheels.py)
if [[ ${#specs[@]} -eq 0 ]]; then
    echo "fetch_gpu_wheels: scripts/gpu_wheels.py listed no wheels" >&2
    exit 1
fi
mkdir -p "$dest"
for spec in "${specs[@]}"; do
    cmd=("$python" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12
        --implementation cp "${platforms[@]}" -d "$dest" "$spec")
    if [[ $dry_run -eq 1 ]]; then
        echo "${cmd[*]}"
    else
        "${cmd[@]}"
    fi
done
# The torchvision wheel test_facts reads, downloaded and sha256-checked by sitekit/facts.py itself.
fetch_data=("$python" -c "from pathlib import Path; from sitekit import facts; print(facts.torchvision_wheel(Path('$dest/data')))")
if [[ $dry_run -eq 1 ]]; then
    echo "${fetch_data[*]}"
else
    "${fetch_data[@]}"
fi
if [[ $dry_run -eq 0 ]]; then
    # One version of each: a stale second copy would stop the host's install.
    count=$(find "$dest" -maxdepth 1 -type f -name '*.whl' | wc -l)
    echo "fetch_gpu_wheels: ${#specs[@]} pins, $count wheels in $dest ($(du -sh "$dest" | cut -f1))"
    [[ $count -eq ${#specs[@]} ]] || { echo "fetch_gpu_wheels: remove stale wheels from $dest" >&2; exit 1; }
fi
