#!/bin/sh
# What `make demo` runs (in examples/), with the virtual environment's bin first on PATH, as
# after `. .venv/bin/activate`: each step is shown as you would type it, then run. The
# steps: scan the example, check it against its registry, triage three of its knobs and
# their pair with per-module checksums (each breaking setting is located: the step, the
# pass and the module where two runs first differ), search for the fastest set of the
# knobs the bitwise profile turns off that stays reproducible together, ordered by the
# modelled GPU time train.py --timing prints (the wall time on the CPU is noise, and
# ordered by it the search missed the pair now and then), and export the recipe. Each
# triage exits 1, as it finds knobs that break reproducibility (one alone, two together);
# the pair breaks only when the threads' adds land in another order, which two runs can
# miss, so both triages run each setting three times.
set -u

# run STATUS COMMAND: show COMMAND, run it, and stop the demo unless it exits STATUS.
run() {
    expected=$1
    printf '\n$ %s\n' "$2"
    eval "$2"
    status=$?
    if [ "$status" -ne "$expected" ]; then
        echo "make demo: \`$2\` exited $status; the demo expects $expected." >&2
        exit 1
    fi
    if [ "$expected" -eq 1 ]; then
        echo "(exit 1: it found knobs that break bitwise reproducibility, as the demo expects)"
    fi
}

cd "$(dirname "$0")/examples" || exit 1
echo "\$ cd examples"
run 0 "knobs scan ."
run 0 "knobs check"
run 1 "knobs triage --profile bitwise --knob TOY_FUSED_LINEAR_CE --knob TOY_EMBED_GRAD_PARALLEL \
--knob TOY_EMBED_GRAD_ATOMIC --pairs --runs 3 --jobs 2 --compare checksums:checksums \
-- python train.py --steps 5"
run 1 "knobs triage --search fastest-bitwise --jobs 2 --runs 3 \
--cost 'regex:modelled GPU time ([0-9]+) us' --compare tensors:params.pt \
-- python train.py --steps 5 --timing --save-tensors params.pt"
run 0 "knobs export --profile bitwise"

cat <<'NEXT'

What next, from the repository's folder:
  . .venv/bin/activate                       # `knobs` on your PATH, as in this demo
  cd examples
  knobs explain TOY_FUSED_LINEAR_CE          # one knob: its entry, its sites, its code
  knobs export --profile bitwise > env.sh    # the recipe, as a file to source
  . ./env.sh                                 # ... and the run that follows reproduces
On your own code: `knobs init path/to/your/code` writes its registry (docs/init.md).
The README's "The recipe workflow" goes on from here; the user guide is docs/index.md.
NEXT
