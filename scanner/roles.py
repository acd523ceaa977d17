"""What a knob controls (its role), proposed from the code, with the evidence.

The evidence, strongest first: the knob's verdict (a fact of the run, a value), the
catalogue of determinism settings and the launcher writes a switch implies, then the
words of its name, of what it feeds (the config key, the command-line flag, the variable
or function its value or test is bound to) and of the functions that read it (which may
name any role but a kernel choice: a kernel's tuning knobs are read inside the kernel's
code). The first of those levels that says anything decides (a word of a size, a count, a
path or a name never for a switch whose tests read on and off words apart); inside a level,
a word of a check, a launch step or debugging wins over a kernel word, while a word of what
is computed beside a kernel word says neither (``X_NVFP4_FUSED_UP``: a precision's kernel,
or the precision itself?): unknown, with both as the hint. A name of what is computed with no
implementation word still sends kernel evidence to a person (``_braked``), unless the code
shows the value chooses how, not what: for a precision, a kill switch (an off value that
leaves the kernel for code that reaches none, outside a quantizer's weight-loading code,
``scanner.reach.weight_loading``) is one. A switch that
names SKIP or BYPASS skips something, so it is never a kernel choice, whatever else its
name says.

A proposal is a starting point for a person, and the bitwise recipe acts only on
``kernel``, ``determinism`` and ``stack``: where the evidence is thin, the role is
``unknown`` with the reason, and nothing acts on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final, Protocol

from scanner.conventions import OFF_WORDS, ON_WORDS, name_words
from scanner.determinism import MODE_EVIDENCE, deterministic_writes, setting
from scanner.languages import Language
from scanner.model import GateKind, Knob, Polarity, Role, Site, Write, WriteKind
from scanner.split_off import split_off
from scanner.suite_files import TEST_FILE


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words, by the role they point to. A word list is a judgement about what names mean in
# training code; each list was checked against Primus, megatron-core and torchtitan.
WORDS: Final[Mapping[Role, frozenset[str]]] = {
    Role.VALUE: _words(
        """SIZE SIZES NUM NUMBER COUNT DIR DIRS PATH PATHS FILE FILES FILENAME ROOT HOME PREFIX
        URL URI PORT ADDR ADDRESS IFNAME TOKEN KEY SECRET PASSWORD USER NAME NAMES ID IDS TP PP
        EP CP DP VPP SP ETP MBS GBS BATCH STEPS ITERS ITERATIONS EPOCHS FREQ FREQUENCY INTERVAL
        LAYERS WORKERS THREADS CHUNKS LEN LENGTH WARMUP TIMEOUT VERSION TAG LEVEL IMAGE REF
        LIST OVERRIDES CONF CONFIG ENTITY PROJECT JOB RATIO FACTOR MODE TYPE ARCH SRC SOURCE
        GROUPS HEADS ARGS FLAGS OPTS OPTIONS"""
    ),
    Role.SAFETY: _words(
        """CHECK CHECKS CHECKING VALIDATE VALIDATION VERIFY VERIFICATION ASSERT ASSERTS
        ASSERTION ASSERTIONS FINGERPRINT SANITY STRICT COMPLIANCE GUARD GUARDS EXPECT ALLOW
        REQUIREMENTS BROKEN SAFE UNSAFE"""
    ),
    Role.LAUNCH: _words(
        """INSTALL REINSTALL UNINSTALL REBUILD BUILD SETUP SYNC DEPS PIP UV CONDA DOCKER
        CONTAINER PODMAN MOUNT DOWNLOAD PREPARE PATCH SHIM DRY DRYRUN CLEAN CLEANUP CLEAR
        LOGIN WHEEL EXTRAS INTERACTIVE EXIT SUBMISSION SUBMIT RESERVATION PARTITION NODES NUMA
        BIND DEEPBIND PRELOAD AINIC UEP BNXT PREWARM RESTART RETRY COMGR"""
    ),
    Role.DEBUG: _words(
        """DEBUG VERBOSE LOG LOGS LOGGING LOGGER TRACE TRACING TRACER PROFILE PROFILER
        PROFILING DUMP PRINT DIAGNOSTIC DIAGNOSTICS NVTX TIMER TIMERS TIMING TIMESTAMP
        COLOR COLOUR WANDB TENSORBOARD MLLOG METRICS MONITOR STATS QUIET SILENT SUPPRESS
        SUPPRESSION BENCH BENCHMARK BENCHMARKS SIMULATED SIMULATION PROJECTION COVERAGE TEST
        TESTS TESTING UT RECORD SERIALIZE BLOCKING"""
    ),
    Role.FEATURE: _words(
        """FP4 FP6 FP8 FP16 FP32 BF16 MXFP4 MXFP6 MXFP8 NVFP4 INT4 INT8 PRECISION DTYPE QUANT
        QUANTIZE QUANTIZED QUANTIZATION AMP LOSS OPTIMIZER OPTIMIZERS OPTIM ADAM ADAMW MUON SGD
        LR MLA MTP LORA DROPOUT SEED RNG RANDOM INIT DATA DATASET DATALOADER PACK PACKING
        SAMPLES TOKENIZER VOCAB RECOMPUTE CHECKPOINTING OFFLOAD DISTRIBUTED MODEL
        ARCHITECTURE TRAINABLE EVAL"""
    ),
    Role.KERNEL: _words(
        """TRITON FUSED FUSE FUSES FUSION FUSIONS UNFUSED KERNEL KERNELS AUTOTUNE AUTOTUNING TUNE
        TUNING TUNED TUNABLEOP ATOMIC ATOMICS GRAPH GRAPHS CUDAGRAPH CUDAGRAPHS COMPILE COMPILED
        INDUCTOR DYNAMO ASM GLUON FLYDSL CUTLASS CUDNN CUBLAS CUBLASLT ROCBLAS HIPBLASLT HIPBLAS
        CK AITER TURBO DEEPEP FLASH FMHA SDPA GEMM GG CACHE CACHED PINGPONG
        PREFETCH TE LIGER APEX XFORMERS EAGER MONOLITHIC"""
    ),
}
# Feature words that name an operation (what is computed), and kernel words that name an
# implementation of one (how): together, the knob chooses the operation's kernel.
OPERATIONS: Final = _words("LOSS ADAM ADAMW MUON SGD OPTIMIZER OPTIMIZERS OPTIM")
IMPLEMENTATIONS: Final = _words(
    "TRITON FUSED FUSE FUSES FUSION FUSIONS UNFUSED KERNEL KERNELS COMPILE COMPILED GLUON "
    "FLYDSL CUTLASS ASM LIGER APEX SPLITK SPLITKV"
)
# PATH after these names a code path (X_FAST_PATH, is_triton_path_enabled), not a file's.
_CODE_PATH: Final = _words("FAST SLOW HOT COLD CODE EXEC TRITON KERNEL FUSED EAGER COMPILED")


def _code_paths_dropped(words: Sequence[str]) -> list[str]:
    """``words`` without a PATH that names a code path."""
    return [
        w
        for at, w in enumerate(words)
        if not (w in ("PATH", "PATHS") and at and words[at - 1] in _CODE_PATH)
    ]


# Words that name a kernel choice only in the framework's own code: a cache there holds
# computed tensors (a RoPE table, a mask), while a library's cache (MIOpen's, comgr's)
# holds compiled code or files.
_OWN_CODE_KERNEL: Final = _words("CACHE CACHED")

# Words that say a knob tunes the runtime around a kernel (its memory, its scheduling, its
# support for a use), not which kernel computes: with them, a kernel word no longer names a
# kernel choice (CUDA_GRAPH_CAPTURE_FREEZE_GC freezes the garbage collector while a graph is
# captured; NCCL_GRAPH_MIXING_SUPPORT=0 drops NCCL's support for graph-captured and eager
# collectives in flight together, and turns no graph off).
RUNTIME_WORDS: Final = _words("GC ALLOC ALLOCATOR MEMORY MEM PRIORITY AFFINITY SUPPORT")

# Inside one level, the first role of this order that a word names wins.
PRECEDENCE: Final = (
    Role.VALUE,
    Role.SAFETY,
    Role.LAUNCH,
    Role.DEBUG,
    Role.FEATURE,
    Role.KERNEL,
)
SKIP_WORDS: Final = frozenset({"SKIP", "SKIPS", "BYPASS"})

# Words that name a deterministic mode. They say so only for a switch (whose on value is
# known), in its name or what it feeds, and only beside no word of a check, a launch step
# or debugging (X_CHECK_DETERMINISM checks: it is no mode), nor of a warning (a mode that
# only warns relaxes a check). Inside one subject they win over a value word
# (deterministic_mode is a switch, not a mode's name); between the subjects of one level
# they rank after the roles that forbid a mode.
DETERMINISM_WORDS: Final = _words("DETERMINISTIC DETERMINISM")
_NOT_A_MODE: Final = (
    WORDS[Role.SAFETY]
    | WORDS[Role.LAUNCH]
    | WORDS[Role.DEBUG]
    | SKIP_WORDS
    | _words("WARN WARNS WARNING WARNINGS")
)
_ACROSS: Final = (*PRECEDENCE[:4], Role.DETERMINISM, *PRECEDENCE[4:])
WHAT: Final[Mapping[Role, str]] = {
    Role.DETERMINISM: "the framework's deterministic mode",
    Role.VALUE: "a size, a count, a path or a name",
    Role.SAFETY: "a check",
    Role.LAUNCH: "a launch step",
    Role.DEBUG: "logging, profiling, tests or debugging",
    Role.FEATURE: "what is computed or trained",
    Role.KERNEL: "a kernel choice",
}
_GENERIC_FUNCTIONS: Final = frozenset({"<module>", "<script>", "<document>", "<lambda>"})


@dataclass(frozen=True, slots=True)
class Proposal:
    """A role, and the evidence for it (or why it is unknown)."""

    role: Role
    reason: str


@dataclass(frozen=True, slots=True)
class Evidence:
    """A role the code shows, why, and the value that does it (the value that leads away
    from the kernel for a kernel choice, the value that turns a deterministic mode on)."""

    role: Role
    reason: str
    value: str | None = None
    default_reaches: bool = False  # the kernel (or the mode) is what runs when unset
    # Code that shows the value chooses how the result is computed (scanner.reach.how), which
    # a name's words that say what is computed do not outweigh: among kernels of each value's
    # own, a hazard whose result changes from run to run that only the side the value leaves
    # reaches (it outweighs a word of precision), and one operation computed two ways (any).
    hazard_left: str | None = None
    same_operation: str | None = None
    # The value leaves the kernel for code that reaches none (not a kernel of its own).
    leaves_every_kernel: bool = False
    # Variables that choose together (scanner.reach.decision_tables): the whole setting
    # that leads away from the kernel, each variable with its value; ``value`` is this one's.
    together: tuple[tuple[str, str], ...] = ()
    # Each value reaches a kernel of its own (the code does not say which is safe).
    rivals: bool = False


class CodeEvidence(Protocol):
    """What a tree's code shows about each knob (``scanner.reach.evidence.CodeReach``)."""

    def evidence(self, knob: Knob) -> Evidence | None:
        """The role the knob's branches show; None when they show nothing."""


def propose_roles(
    knobs: Iterable[Knob], writes: Sequence[Write], code: CodeEvidence | None = None
) -> tuple[Knob, ...]:
    """``knobs``, each with its proposed role and reason (``code``: what the tree's code
    reaches, to read each knob's branches)."""
    implied = _implied_writes(writes)
    handing = _handing_on(writes)
    out = []
    for knob in knobs:
        evidence = _read(code, knob) if code is not None and reads_code(knob) else None
        if evidence is not None and knob.name in handing:
            evidence = _handed_on(knob, evidence, handing[knob.name])
        found = propose(knob, implied.get(knob.name, ()), evidence)
        knob = replace(knob, role=found.role, role_reason=found.reason)
        if evidence is not None and found.role is evidence.role:
            knob = _fitted(knob, evidence)
        out.append(knob)
    return tuple(out)


def _handing_on(writes: Sequence[Write]) -> dict[str, Write]:
    """The first place the tree's Python code writes each variable with a value it computes
    (``os.environ[N] = tiles``): through those it hands a value on to another reader."""
    found: dict[str, Write] = {}
    for write in sorted(writes, key=lambda w: w.sort_key):
        if (
            write.name is not None
            and write.language is Language.PYTHON
            and write.kind in _HANDING
            and write.value is None
        ):
            found.setdefault(write.name, write)
    return found


_HANDING = (WriteKind.SET, WriteKind.SETDEFAULT, WriteKind.PUTENV)


def _handed_on(knob: Knob, evidence: Evidence, write: Write) -> Evidence:
    """A presence test's evidence for a variable the tree also hands a value on through
    (sglang muse_spark_megamoe.py:335, :354: a tile spec for DeepGEMM, whose presence only
    lets a user's spec win): any on value a recipe wrote would be read as that value."""
    if knob.kind is not GateKind.PRESENCE or evidence.role not in ACTED_ON:
        return evidence
    return Evidence(
        Role.UNKNOWN,
        f"{evidence.reason}; but the tree writes {knob.name} itself with a value it computes "
        f"({write.path}:{write.line}): it hands a value on through the environment, which a "
        "switch's value would replace: a person must say",
    )


def _read(code: CodeEvidence, knob: Knob) -> Evidence | None:
    """What the code shows of ``knob``; where reading it fails, unknown with the error: one
    knob's reading never stops the scan of a tree."""
    try:
        return code.evidence(knob)
    except Exception as error:  # any fault of the reach, reported on the knob
        return Evidence(
            Role.UNKNOWN,
            f"reading the code its value decides failed ({type(error).__name__}: {error}): "
            "please report it, with the file of its first site",
        )


# Verdicts whose branches are read for a role: switches, and values that choose.
_READABLE = (GateKind.BOOLEAN, GateKind.PRESENCE, GateKind.VALUE)


def reads_code(knob: Knob) -> bool:
    """Whether ``propose_roles`` asks the code's evidence for ``knob``'s role."""
    return knob.kind in _READABLE


def _fitted(knob: Knob, evidence: Evidence) -> Knob:
    """The knob as its branches show it. A switch's polarity: the value that leads away
    from the kernel (or turns the mode on) is an off value of an enable knob, or an on value
    of a disable knob, whatever any name says. A value that chooses a kernel when unset,
    where another choice reaches none: on by default, and that choice turns it off."""
    value = evidence.value
    if evidence.together and value is not None:
        return _chosen_together(knob, evidence.together, value)
    if knob.kind is GateKind.VALUE:
        if evidence.role is Role.KERNEL and evidence.default_reaches and value is not None:
            return replace(knob, default_on=True, off_value=value)
        if evidence.role is Role.DETERMINISM and not evidence.default_reaches and value:
            # a value that chooses a deterministic path unset does not take: the mode is
            # off by default, and that value turns it on
            return replace(knob, default_on=False, on_value=value)
        return knob
    sites = [s.gate for s in knob.sites]
    off_values = {v for g in sites for v in g.off_values} | {knob.off_value}
    on_values = {v for g in sites for v in g.on_values} | {knob.on_value}
    leads_away = evidence.role is Role.KERNEL and evidence.default_reaches
    turns_on = not leads_away
    if leads_away and value is not None and (split := split_off(knob, value)) is not None:
        return split  # sites that test the value with opposite senses
    if leads_away and value in off_values:
        return _as_followed(replace(knob, polarity=Polarity.ENABLE), "off_value", value)
    if turns_on and value in on_values:
        return _as_followed(replace(knob, polarity=Polarity.ENABLE), "on_value", value)
    if leads_away and value in on_values:
        if value is not None and any(g.kind is GateKind.VALUE for g in sites):
            # ``if N in os.environ`` beside a read whose value decides (Primus
            # fla_runtime_patches.py:110, :137): set to "1" the kernel stays; the value
            # that leaves it is the one that disables
            return replace(knob, polarity=Polarity.DISABLE, on_value=value)
        return _as_followed(replace(knob, polarity=Polarity.DISABLE), "on_value", value)
    if turns_on and value in off_values:
        return _as_followed(replace(knob, polarity=Polarity.DISABLE), "off_value", value)
    return knob


def _as_followed(knob: Knob, field: str, value: str | None) -> Knob:
    """The knob with ``value``, the one its branches were followed with, as its ``field``
    (the value a profile writes), where every site's test reads it as it reads the knob's
    own: another value the gate reads alike may run other branches of a later test
    (ktransformers 95009ea ascend_attention.py:123-135, :208-285: every value but "0" is
    on, and "1" runs two other NPU kernels where "true" runs the torch path). A value some
    site reads otherwise, or a knob with no such value (none turns every site off), is
    left as it is."""
    on = field == "on_value"
    current = knob.on_value if on else knob.off_value
    if value is None or current is None or current == value:
        return knob
    if not all(value in (s.gate.on_values if on else s.gate.off_values) for s in knob.sites):
        return knob
    return replace(knob, on_value=value) if on else replace(knob, off_value=value)


def _chosen_together(knob: Knob, pairs: tuple[tuple[str, str], ...], value: str) -> Knob:
    """A variable of a setting made together: its kernel is on unset (the variables unset
    choose it), and ``value`` turns it off: the on value of a disable knob where its own test
    reads ``value`` as on, else the off value of an enable knob on by default (whatever its
    own test reads unset: the setting decides, not the one variable)."""
    on_values = {v for s in knob.sites for v in s.gate.on_values}
    if knob.kind is not GateKind.VALUE and value in on_values:
        return replace(
            knob, together=pairs, polarity=Polarity.DISABLE, default_on=False, on_value=value
        )
    return replace(knob, together=pairs, polarity=Polarity.ENABLE, default_on=True, off_value=value)


def propose(
    knob: Knob, implied: Sequence[tuple[str, Write]] = (), evidence: Evidence | None = None
) -> Proposal:
    """The role of ``knob``; ``implied`` holds the launcher writes made when the knob holds
    a given value, with that value; ``evidence``, what its branches reach."""
    if knob.kind is GateKind.LAUNCH:
        return Proposal(Role.FACT, "set by the launcher or the system, not a switch")
    known = setting(knob.name)
    if known is not None:
        return Proposal(
            Role.STACK,
            f"a determinism setting of {known.library} in the catalogue: "
            f"{known.value!r} gives {known.effect}",
        )
    if evidence is not None:
        return _braked(knob, evidence) or Proposal(evidence.role, evidence.reason)
    mode = _deterministic_mode(knob, implied)
    if mode is not None:
        return mode
    if knob.kind in (GateKind.VALUE, GateKind.REQUIREMENT):
        if knob.name.startswith("_"):
            return Proposal(Role.FACT, "an internal variable the launcher sets itself")
        return Proposal(Role.VALUE, "not a switch: the code uses its value")
    if all(TEST_FILE.search(site.path) for site in knob.sites):
        return Proposal(Role.DEBUG, "read only by tests and benchmarks")
    return _from_words(knob)


# The roles a recipe acts on: only code, the catalogue or a person can give them.
ACTED_ON: Final = (Role.KERNEL, Role.DETERMINISM)
# Words that name what is computed: a knob whose code reaches a kernel but whose name (or,
# for a choice, the value chosen) says one of these, and no implementation word, may change
# what is computed when turned off (an FP8 path, a LoRA adapter): a person must say.
# Of those, the words of a number format: the other value computes the same model in
# another precision, not another model (a LoRA adapter, a loss).
PRECISION: Final = _words(
    """FP4 FP6 FP8 FP16 FP32 BF16 MXFP4 MXFP6 MXFP8 NVFP4 INT4 INT8 PRECISION DTYPE QUANT
    QUANTIZE QUANTIZED QUANTIZATION AMP"""
)
COMPUTED: Final = PRECISION | _words(
    "LORA MTP MLA DROPOUT MODEL ARCHITECTURE TRAINABLE LOSS OPTIMIZER"
)
# Words that name the plain implementation a switch's on value picks (X_FP8_LOGITS_TORCH=1):
# the value the code shows leading away from the kernel is then that implementation.
PLAIN_PATHS: Final = _words("TORCH NATIVE EAGER")


def _braked(knob: Knob, evidence: Evidence) -> Proposal | None:
    """Unknown, for a kernel choice whose name (or chosen value) says what is computed,
    unless the code shows the value chooses how it is computed (``Evidence.hazard_left``,
    ``Evidence.same_operation``, and for a precision a kill switch): then a kernel choice,
    the name's word and the code's fact both in the reason."""
    if evidence.role is not Role.KERNEL:
        return None
    words = [*name_words(knob.name), *name_words(evidence.value or "")]
    computed = COMPUTED.intersection(words)
    if not computed or IMPLEMENTATIONS.intersection(words):
        return None
    if PLAIN_PATHS.intersection(words) and evidence.value in ON_WORDS:
        return None  # turning it on picks the plain path the name says, as the code shows
    how = evidence.same_operation
    if how is None and computed <= PRECISION:
        how = evidence.hazard_left or _kill_switch(knob, evidence)
    if how is not None:  # the code outweighs the name (scanner.reach.how)
        return Proposal(
            Role.KERNEL,
            f"{evidence.reason}; the name says {min(computed)}, what is computed, but "
            f"{how}: the value chooses how it is computed, not what",
        )
    return Proposal(
        Role.UNKNOWN,
        f"{evidence.reason}; but the name says {min(computed)}, what is computed, so the "
        "other value may change the result itself: a person must say",
    )


def _kill_switch(knob: Knob, evidence: Evidence) -> str | None:
    """What shows a switch named for a precision turns a kernel off, not the precision: the
    kernel is what runs unset, and an off value of its own tests leaves it for code that
    reaches no kernel, in no quantizer's weight-loading code (``scanner.reach.
    weight_loading``: a value decided there may re-quantize the weights, and the code then
    says unknown before this is asked)."""
    value = evidence.value
    if not (evidence.default_reaches and evidence.leaves_every_kernel) or value is None:
        return None
    if knob.kind not in (GateKind.BOOLEAN, GateKind.PRESENCE):
        return None
    sites = [site.gate for site in knob.sites]
    off = {v for gate in sites for v in gate.off_values} | {knob.off_value}
    on = {v for gate in sites for v in gate.on_values} | {knob.on_value}
    if value not in off or value in on:
        return None
    return (
        f"{value!r} is an off value of its own tests, and it turns the kernel off (a kill switch)"
    )


def _implied_writes(writes: Sequence[Write]) -> dict[str, list[tuple[str, Write]]]:
    """For each variable, the writes made under a condition on its value."""
    found: dict[str, list[tuple[str, Write]]] = {}
    for write in writes:
        for name, value in write.when:
            found.setdefault(name, []).append((value, write))
    return found


def _deterministic_mode(knob: Knob, implied: Sequence[tuple[str, Write]]) -> Proposal | None:
    """The framework's deterministic mode: a switch whose on value makes the launcher set
    known determinism settings of the stack to their deterministic values."""
    if knob.kind not in (GateKind.BOOLEAN, GateKind.PRESENCE) or knob.on_value is None:
        return None
    mine = [w for value, w in implied if value == knob.on_value and w.name is not None]
    settings = deterministic_writes((w.name, w.value) for w in mine if w.name is not None)
    if len(settings) < MODE_EVIDENCE:
        return None
    first = next(w for w in mine if any(s.name == w.name for s in settings))
    shown = ", ".join(f"{s.name}={s.value}" for s in settings[:3])
    more = f" and {len(settings) - 3} more" if len(settings) > 3 else ""
    return Proposal(
        Role.DETERMINISM,
        f"with {knob.name}={knob.on_value}, {first.path}:{first.line} sets {shown}{more}: "
        "the framework's deterministic mode",
    )


def _from_words(knob: Knob) -> Proposal:
    """The role the words of the knob's name, targets, functions and files point to."""
    words = name_words(knob.name)
    skipped = SKIP_WORDS.intersection(words)
    if skipped:
        return _skip(knob.name, words, min(skipped))
    own_code = any(site.language is Language.PYTHON for site in knob.sites)
    for where, subjects, table in _levels(knob, own_code):
        found: list[tuple[Role, str, str]] = []
        for subject in subjects:
            hit = _role_of(name_words(subject), table)
            if hit is not None:
                found.append((*hit, subject))
        if found:
            role, word, subject = min(found, key=lambda f: _ACROSS.index(f[0]))
            runtime = RUNTIME_WORDS.intersection(name_words(subject))
            if role is Role.KERNEL and runtime:
                return Proposal(
                    Role.UNKNOWN,
                    f"{where} {subject} says {word} (a kernel choice) but also "
                    f"{min(runtime)} (the runtime around a kernel): it does not say which",
                )
            if role is Role.FEATURE:
                kernel = _kernel_word(subjects, table)
                if kernel is not None:
                    how, said = kernel
                    beside = f"{how}" if said == subject else f"{said} says {how}"
                    return Proposal(
                        Role.UNKNOWN,
                        f"{where} {subject} says {word} ({WHAT[role]}) and {beside} (a kernel "
                        "choice): words alone do not say which, and no code it reaches shows "
                        "a kernel",
                    )
            if role in ACTED_ON:
                return Proposal(
                    Role.UNKNOWN,
                    f"{where} {subject} says {word}, a hint of {WHAT[role]}, but no code it "
                    "reaches shows one: words alone are not evidence",
                )
            return Proposal(role, f"{where} {subject} says {word} ({WHAT[role]})")
    return Proposal(
        Role.UNKNOWN,
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    )


def _kernel_word(
    subjects: Sequence[str], table: Mapping[Role, frozenset[str]]
) -> tuple[str, str] | None:
    """The first kernel word of ``subjects`` (a level's), and the subject that says it."""
    for subject in subjects:
        words = _code_paths_dropped(name_words(subject))
        found = next((w for w in words if w in table.get(Role.KERNEL, ())), None)
        if found is not None:
            return found, subject
    return None


def _skip(name: str, words: Sequence[str], verb: str) -> Proposal:
    """A SKIP switch: a check, a launch step or a debugging aid it skips; never a kernel
    choice, nor a value."""
    rest = [w for w in words if w not in SKIP_WORDS]
    run = next((w for w in rest if w in _SKIPPED_RUN), None)
    found = _role_of(rest, {r: WORDS[r] for r in _SKIPPED})
    if found is None and run is not None:
        found = Role.LAUNCH, run
    if found is None:
        return Proposal(
            Role.UNKNOWN,
            f"the name says {verb}: it skips part of the run, and its name does not say which",
        )
    role, word = found
    return Proposal(role, f"the name says {verb} {word}: it skips {WHAT[role]}")


# The function around a read says where it is read, not what it chooses: a kernel's own
# tuning knob is read inside the kernel's launcher, a module's switches in its __init__, a
# mode's in a ``_mode()`` helper. It may name a check, a launch step or debugging, never
# what is computed, a value or a kernel choice (a function that returns the test is what
# the read feeds).
_LIBRARY_WORDS: Final[Mapping[Role, frozenset[str]]] = {
    role: words - _OWN_CODE_KERNEL if role is Role.KERNEL else words
    for role, words in WORDS.items()
}
_FUNCTION_WORDS: Final[Mapping[Role, frozenset[str]]] = {
    role: words for role, words in WORDS.items() if role in (Role.SAFETY, Role.LAUNCH, Role.DEBUG)
}
# What a SKIP switch skips when it names training itself, besides the launch words.
_SKIPPED_RUN: Final = _words("TRAIN TRAINING MAIN LAUNCH RUN JOB START")
_SKIPPED: Final = (Role.SAFETY, Role.LAUNCH, Role.DEBUG)


_SWITCH_WORDS: Final = frozenset((*ON_WORDS, *OFF_WORDS))


def _reads_switch_words(knob: Knob) -> bool:
    """Whether the verdict says a switch whose tests read on and off words apart: every
    value they name (and the knob's on and off values) is one (``"expandable_segments:True"
    in os.getenv("PYTORCH_CUDA_ALLOC_CONF", "")`` reads a setting, not a switch)."""
    if knob.kind not in (GateKind.BOOLEAN, GateKind.PRESENCE):
        return False
    values = (knob.on_value, knob.off_value)
    named = {v for site in knob.sites for v in (*site.gate.on_values, *site.gate.off_values)}
    named.update(v for v in values if v is not None)
    named.discard("")
    return bool(named) and named <= _SWITCH_WORDS


def _levels(
    knob: Knob, own_code: bool
) -> Iterator[tuple[str, list[str], Mapping[Role, frozenset[str]]]]:
    """The subjects whose words are read, by level, with the words each level may use:
    the name, what the sites feed, the functions that read it. (A file's folders say
    less still: a model is named after a kernel, DeepSeek-V4-Flash, and kernels/ holds
    each kernel's tuning knobs beside its switch.)"""
    words = WORDS if own_code else _LIBRARY_WORDS
    if _reads_switch_words(knob):
        # its tests read "0" and "1" apart: a word of a size or a name (BATCH in
        # VLLM_BATCH_INVARIANT) does not make it a value
        words = {role: found for role, found in words.items() if role is not Role.VALUE}
    if knob.kind in (GateKind.BOOLEAN, GateKind.PRESENCE) and knob.on_value is not None:
        words = {Role.DETERMINISM: DETERMINISM_WORDS, **words}
    yield "the name", [knob.name], words
    yield "what it feeds,", _distinct(s.target for s in knob.sites), words
    yield (
        "the function that reads it,",
        _distinct(_function(s) for s in knob.sites),
        _FUNCTION_WORDS,
    )


def _function(site: Site) -> str | None:
    if site.language is Language.YAML or site.function in _GENERIC_FUNCTIONS:
        return None
    return site.function.rsplit(".", 1)[-1]


def _distinct(values: Iterable[str | None]) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))


def _role_of(words: Sequence[str], table: Mapping[Role, frozenset[str]]) -> tuple[Role, str] | None:
    """The role the words point to by ``table``, by PRECEDENCE, and the word that says it.

    An operation named beside an implementation word is that operation's kernel:
    X_DISABLE_FUSED_ADAM and CROSS_ENTROPY_LOSS_FUSION choose how, not what."""
    words = _code_paths_dropped(words)
    mode = [w for w in words if w in table.get(Role.DETERMINISM, ())]
    if mode and not _NOT_A_MODE.intersection(words):
        return Role.DETERMINISM, mode[0]
    for role in PRECEDENCE:
        found = [word for word in words if word in table.get(role, ())]
        if not found:
            continue
        if role is Role.FEATURE and set(found) <= OPERATIONS:
            how = next((w for w in words if w in IMPLEMENTATIONS), None)
            if how is not None and how in table.get(Role.KERNEL, ()):
                return Role.KERNEL, how
        return role, found[0]
    return None
