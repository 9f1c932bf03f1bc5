"""The command line's report, signatures and reproduction: ``evalcore report``, ``evalcore reproduce`` and the
``--signature`` option of the commands that write a table.

A command's signature (:func:`command_signature`) names the evalcore version, the SHA-256 of every data file,
each option that decides the numbers (under the option's name, ``--confidence-level`` as ``level``,
``--correction`` as ``corr``) and a digest of the table the command wrote (:func:`csv_digest`).
``reproduce`` turns a signature back into the same command (:func:`argv_from_signature`), runs it on the
data file, and compares the digests; for a report it rebuilds :class:`ReportSettings` and recomputes the
report's numbers, and for a download from the dashboard (a signature naming its ``part``) that download's table
(:mod:`evalcore.report.parts`).
"""

from __future__ import annotations

import argparse
import io
import sys
from contextlib import redirect_stderr
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

import pandas as pd

from ..candidates import CandidateSet
from ..errors import ParameterError
from ..text import shown
from ..io import load_candidates
from ..names import DEFAULT_POWER
from ..nspec import parse_n_spec
from ..ranking import SEEDED_TIES, resolve_seed
from ..stats.intervals import INTERVAL_METHODS
from ..stats.multitest import CORRECTIONS
from ..stats.pairtests import PAIR_TESTS
from ..viewstate import default_n_range
from ..work import command_budget
from ..work.budget import ON_THE_COMMAND_LINE
from .build import build_report, share_link
from .results import report_results, results_digest
from .settings import (ReportSettings, SampleDesign, default_sizes, frame_spec, parse_frame_spec, parse_names,
                       parse_strata_spec, settings_from_signature)
from .parts import part_of, part_table, table_digest
from .signature import Signature, compare_signatures, evalcore_version, file_sha256, numbers_digest, parse_signature
from .parsers import SIGNATURE_HELP, TABLE_COMMANDS, add_parsers

__all__ = ["add_parsers", "COMMANDS", "TABLE_COMMANDS", "run_signed", "command_signature", "argv_from_signature", "csv_digest",
           "load_report_candidates", "reproduce", "Reproduction", "SIGNATURE_HELP"]

# Options that never decide a number, so a signature leaves them out.
_NOT_SIGNED = {"command", "file", "files", "out", "signature", "per_sample", "help", "work_budget"}
# Signature keys of options whose own name is long or unclear; the others use the option's name.
_KEYS = {"confidence_level": "level", "correction": "corr", "lower_is_better": "lower", "measure": "measures",
         "exclude_unlabelled": "unlabelled", "beta": "betas"}
# Always named, even at their default, because they are what a reader looks for first.
_ALWAYS = {"label", "measures", "ties", "seed", "test", "alternative", "corr", "level", "n", "interval", "kind",
           "cut"}
# Options whose value is a comma-separated list (written as the signature's list items).
_COMMA_LISTS = {"n", "gamma"}


def _key(action: argparse.Action) -> str:
    return _KEYS.get(action.dest, action.dest.replace("_", "-"))


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    for action in parser._actions:  # argparse keeps its subcommands here; there is no public accessor
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            return action.choices[command]
    raise ParameterError(f"the command line has no command {shown(command)}; a signature names one of its commands")


def _signed_actions(parser: argparse.ArgumentParser, command: str) -> list[argparse.Action]:
    sub = _subparser(parser, command)
    return [a for a in sub._actions if a.option_strings and a.dest not in _NOT_SIGNED]


def _items(action: argparse.Action, value) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    if value is True:
        return ("yes",)
    if action.dest in _COMMA_LISTS:
        return tuple(v.strip() for v in str(value).split(",") if v.strip())
    return (str(value),)


def data_files(args) -> list[str]:
    return [args.file] if getattr(args, "file", None) and not getattr(args, "files", None) else list(args.files)


def command_signature(parser: argparse.ArgumentParser, args: argparse.Namespace, digest: str,
                      version: str | None = None) -> Signature:
    """The signature of a command-line run: its options that decide numbers, the data, the table's digest."""
    fields = []
    for action in _signed_actions(parser, args.command):
        value = getattr(args, action.dest)
        key = _key(action)
        if value is None or value is False or value == []:
            continue
        if key not in _ALWAYS and value == action.default:
            continue
        fields.append((key, _items(action, value)))
    return Signature(version=version or evalcore_version(), command=args.command,
                     data=tuple(file_sha256(f) for f in data_files(args)), settings=tuple(fields), numbers=digest)


def argv_from_signature(parser: argparse.ArgumentParser, signature: Signature, files: Sequence[str]) -> list[str]:
    """The command line that a command's signature describes, on the given data files."""
    actions = {_key(a): a for a in _signed_actions(parser, signature.command)}
    argv = [signature.command, *map(str, files)]
    for key, items in signature.settings:
        if key not in actions:
            raise ParameterError(f"this evalcore's {signature.command!r} has no option for the signature's {shown(key)} "
                                 f"(a signature from another version?)")
        action = actions[key]
        option = action.option_strings[-1]
        if isinstance(action, argparse._AppendAction):
            for item in items:
                argv += [option, item]
        elif isinstance(action, argparse._StoreTrueAction):
            argv.append(option)
        else:
            argv += [option, ",".join(items)]
    return argv


def csv_digest(csv_text: str) -> str:
    """The digest of a table as the command wrote it (read back, so numbers are compared, not their spelling)."""
    if not csv_text.strip():
        return numbers_digest({"table": []})
    return numbers_digest({"table": pd.read_csv(io.StringIO(csv_text))})


def _capture(command: Callable, args: argparse.Namespace) -> str:
    """Run a command with its table written into a string (its notes still go to standard error)."""
    buffer = io.StringIO()
    args.out = buffer
    command(args)
    return buffer.getvalue()


def _emit_signature(signature: Signature, target: str) -> None:
    text = str(signature)
    if target == "-":
        print(f"evalcore: signature: {text}", file=sys.stderr)
    else:
        Path(target).write_text(text + "\n", encoding="utf-8")
        print(f"evalcore: signature written to {target}", file=sys.stderr)


def run_signed(args: argparse.Namespace, commands: Mapping[str, Callable], parser: argparse.ArgumentParser) -> None:
    """Run a table-writing command and sign its result (``--signature``)."""
    if getattr(args, "ties", None) in SEEDED_TIES and args.seed is None:  # the signature must name the seed
        args.seed = resolve_seed("random", None)
    out = args.out
    text = _capture(commands[args.command], args)
    args.out = out
    if out:
        Path(out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    _emit_signature(command_signature(parser, args, csv_digest(text)), args.signature)


# ------------------------------------------------------------------------------------------------ report

def load_report_candidates(path: str, settings: ReportSettings) -> CandidateSet:
    """Read a data file as a report's settings say: label, measures, directions, excluded rows, sample; with a
    sample design, the rows with an empty label as unannotated candidates."""
    if settings.design is not None:
        from ..io import load_annotated_sample

        return load_annotated_sample(path, label=settings.label, scores=list(settings.measures),
                                     lower_is_better=settings.lower, min_annotated=1, encoding=settings.encoding,
                                     sheet=settings.sheet, where="cli").candidates
    candidates = load_candidates(path, label=settings.label, scores=list(settings.measures),
                                 lower_is_better=settings.lower, exclude_unlabelled=settings.exclude_unlabelled,
                                 encoding=settings.encoding, sheet=settings.sheet,
                                 sample=settings.sample_column or False, where="cli")
    if settings.sample is not None:
        candidates = candidates.subset(candidates.sample_mask(settings.sample),
                                       source=f"{candidates.source}, sample {settings.sample}")
    return candidates


def _design(args: argparse.Namespace) -> SampleDesign | None:
    """The sample design of ``--annotated-sample`` and its options (None without it; its options alone are an
    error)."""
    given = [o for o, v in (("--sample-frame", args.sample_frame), ("--sample-seed", args.sample_seed),
                            ("--pool", getattr(args, "pool", None)),
                            ("--pool-sample", getattr(args, "pool_sample", None) is not None),
                            ("--strata", getattr(args, "strata", None)),
                            ("--strata-sample", getattr(args, "strata_sample", None) is not None),
                            ("--sample-interval", args.sample_interval != "hypergeometric"),
                            ("--min-annotated", args.min_annotated != 10)) if v]
    if not args.annotated_sample:
        if given:
            raise ParameterError(f"{', '.join(given)} describe(s) an annotated sample; add --annotated-sample")
        return None
    if args.sample_column or args.sample:
        raise ParameterError("--annotated-sample reads one partly annotated set; --sample-column and --sample are for "
                             "an experiment with several fully annotated samples")
    unused = [o for o, v in (("--interval", args.interval != "clopper_pearson"),
                             ("--power", args.power != DEFAULT_POWER),
                             ("--resamples", args.resamples != 1000)) if v]
    if unused:  # the user's choice would change no number: say so rather than drop it
        raise ParameterError(f"{', '.join(unused)} change(s) no number of a report from an annotated sample: its "
                             "precision intervals are chosen with --sample-interval, its test is Fisher's exact test "
                             "on the annotated candidates of D1 and D2, and it gives no minimum detectable difference")
    strata, strata_sample = getattr(args, "strata", None), getattr(args, "strata_sample", None)
    if strata or strata_sample is not None:  # a stratified design (evalcore.pooling.stratified, issue 33)
        from ..pooling import stratified_cli

        stratified_cli.check(args)
        measures, widths = parse_strata_spec(strata)
        sizes = None
        if strata_sample:
            items = [x.strip() for x in strata_sample.split(",") if x.strip()]
            if not all(x.isdigit() for x in items):
                raise ParameterError(f"--strata-sample on a report: the sample size of each band as a whole number "
                                     f"(a band sampled whole: its number of candidates); got {strata_sample[:80]!r}")
            sizes = tuple(int(x) for x in items)
        return SampleDesign(frame=measures, frame_k=sum(widths), interval=args.sample_interval,
                            min_annotated=args.min_annotated, draw_seed=args.sample_seed, kind="stratified",
                            bands=widths, band_sizes=sizes)
    pool, pool_sample = getattr(args, "pool", None), getattr(args, "pool_sample", None)
    if pool or pool_sample is not None:  # a pooled design (evalcore.pooling): the pool annotated whole
        from ..pooling import cli as pool_cli

        pool_cli._check(args, ())
        frame, k = parse_frame_spec(pool)
        return SampleDesign(frame=frame, frame_k=k, interval=args.sample_interval, min_annotated=args.min_annotated,
                            draw_seed=args.sample_seed, kind="pool" if pool_sample is None else "pool+sample",
                            pool_sample=pool_sample)
    frame, k = parse_frame_spec(args.sample_frame) if args.sample_frame else ((), 0)
    return SampleDesign(frame=frame, frame_k=k, interval=args.sample_interval, min_annotated=args.min_annotated,
                        draw_seed=args.sample_seed)


def _exported_design(args: argparse.Namespace, exported, stated: SampleDesign) -> SampleDesign:
    """The design of an export (its ``evalcore:`` columns, :func:`evalcore.pooling.exported.design_of_export`),
    written into ``args`` as its options would state it, so the signature names it: options that state another
    design are refused (the export's pool or frame, and its seed unless ``--sample-seed`` is given)."""
    d = exported.design
    if stated.kind == "stratified":
        raise ParameterError(f"--strata: {shown(str(args.file))} is an export of {d.describe()}, not of a stratified "
                             "design; leave --strata and --strata-sample out to use its own")
    if d.pooled:
        from ..pooling import cli as pool_cli

        pool_cli.design(args, (), exported)  # (checks --pool and --pool-sample against it, and fills them in)
    else:
        own = d.frame
        spec = frame_spec(own.measures, own.k) if own.measures else None
        if args.sample_frame and (spec is None or sorted(parse_frame_spec(args.sample_frame)[0]) != sorted(own.measures)
                                  or parse_frame_spec(args.sample_frame)[1] != own.k):
            raise ParameterError(f"--sample-frame {shown(args.sample_frame)}: {shown(str(args.file))} is an export "
                                 f"whose sample was drawn as {own.describe()}; leave --sample-frame out to use it")
        args.sample_frame = spec
    if args.sample_seed is None:
        args.sample_seed = d.seed
    return _design(args)


def _report_settings(args: argparse.Namespace, probe=None) -> tuple[ReportSettings, CandidateSet]:
    design = _design(args)
    if probe is None:  # (an engine's count tables were estimated by the engine)
        from ..cli_steps import read

        read(args.file, args)
    if probe is not None:  # an engine's count tables bring their own (evalcore.engines.cli.report)
        pass
    elif design is not None:
        from ..cli_steps import limits
        from ..io import load_annotated_sample
        from ..pooling import cli as pool_cli

        if args.exclude_unlabelled:
            raise ParameterError("--exclude-unlabelled leaves the rows with an empty label out, --annotated-sample "
                                 "keeps them as unannotated candidates of a random sample; choose one")
        table, exported = pool_cli.read(args)  # (an export carries its design, as for curves and compare)
        if exported is not None:
            design = _exported_design(args, exported, design)
        probe = load_annotated_sample(table, label=args.label, scores=args.measure,
                                      lower_is_better=tuple(args.lower_is_better), min_annotated=1,
                                      encoding=args.encoding, sheet=args.sheet, limits=limits(args), where="cli",
                                      name=str(args.file)).candidates
        if exported is not None:
            from ..pooling.exported import check_annotated

            check_annotated(exported.design, probe, exported.design.pool_mask(probe), exported,
                            source=str(args.file))
    else:
        probe = load_candidates(args.file, label=args.label, scores=args.measure,
                                lower_is_better=tuple(args.lower_is_better), exclude_unlabelled=args.exclude_unlabelled,
                                encoding=args.encoding, sheet=args.sheet, sample=args.sample_column or False,
                                where="cli")
    if args.sample is not None:
        probe = probe.subset(probe.sample_mask(args.sample), source=f"{probe.source}, sample {args.sample}")
    n = probe.n_candidates
    sizes = parse_n_spec(args.n, n) if args.n else None
    if args.range:
        try:
            lo, hi = (int(v) for v in args.range.split(":"))
        except ValueError:
            raise ParameterError(f"--range {shown(args.range)}: give FIRST:LAST, e.g. 100:2000") from None
    elif sizes is not None:
        lo, hi = int(sizes[0]), int(sizes[-1])
    else:
        lo, hi = default_n_range(n)
    if sizes is None:
        sizes = default_sizes((lo, hi))
    seed = resolve_seed("random", args.seed) if (args.ties in SEEDED_TIES or args.test in ("bootstrap", "randomization")) \
        else None
    if args.ties in SEEDED_TIES:
        print(f"evalcore: ties broken at random with seed {seed} (pass --seed {seed} to repeat)", file=sys.stderr)
    settings = ReportSettings(
        measures=probe.measures, label=probe.label_column, sizes=tuple(int(v) for v in sizes), n_range=(lo, hi),
        pair=tuple(args.pair) if args.pair else None, lower=tuple(args.lower_is_better),
        exclude_unlabelled=args.exclude_unlabelled, sample_column=args.sample_column, sample=args.sample,
        encoding=args.encoding, sheet=args.sheet, ties=args.ties, seed=seed, test=args.test,
        correction=args.correction, level=args.confidence_level, interval=args.interval, resamples=args.resamples,
        difference_interval=args.difference_interval, power=args.power, design=design, n_step=args.step)
    return settings, probe


def _up_to(up_to: int) -> str:
    """Figure 3's line in words: 0 means the first tested n already is not significant (no line)."""
    return f"at every n up to {up_to}" if up_to else "not at the first tested n"


def cmd_report(args: argparse.Namespace) -> None:
    counted = None
    if getattr(args, "engine", "memory") != "memory":  # count tables from DuckDB or Spark (evalcore.engines)
        from ..engines import cli as engine_cli

        counted = engine_cli.report_tables(args)
    settings, candidates = _report_settings(args, None if counted is None else counted.summary())
    names = parse_names(args.name)
    out = args.out or "report.zip"
    sha = file_sha256(args.file)
    if counted is None:
        results = report_results(candidates, settings, budget=command_budget(args.work_budget),
                                 where=ON_THE_COMMAND_LINE)  # or refused
    else:  # the engine's count tables (out of core; a command line's own work)
        results = report_results(candidates, settings, rankings=counted.rankings)
    report = build_report(candidates, settings, data_sha256=sha, names=names, figures=not args.no_figures,
                          link=share_link(settings, sha, args.link_base), results=results)
    Path(out).write_bytes(report.zip_bytes())
    r = report.results
    print(f"evalcore: report written to {out} ({len(report.files)} files); {settings.pair[0]} vs {settings.pair[1]}: "
          f"significant at {r.n_significant} of {r.n_figure_tests} n, {_up_to(r.up_to)}", file=sys.stderr)
    if args.signature is not None:
        _emit_signature(report.signature, args.signature)


# --------------------------------------------------------------------------------------------- reproduce

@dataclass(frozen=True)
class Reproduction:
    """What reproducing a signature found: whether data and numbers match, and the recomputed signature."""

    signature: Signature
    recomputed: Signature | None
    data_match: bool
    numbers_match: bool
    messages: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return self.data_match and self.numbers_match


def _parse_command(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """The command a signature describes, parsed; an option argparse refuses (a value of the wrong kind, an
    unknown choice) is one line naming it, not argparse's usage text and exit."""
    errors = io.StringIO()
    try:
        with redirect_stderr(errors):
            return parser.parse_args(argv)
    except SystemExit:
        lines = [line for line in errors.getvalue().splitlines() if line.strip()]
        reason = lines[-1].split(": error: ", 1)[-1] if lines else "it is not a valid command"
        raise ParameterError(f"the signature's settings do not make a valid {argv[0]!r} command: {reason[:300]}") \
            from None


def reproduce(signature: Signature, files: Sequence[str], *, parser: argparse.ArgumentParser,
              commands: Mapping[str, Callable], work_budget: float | None = None) -> Reproduction:
    """Recompute the numbers a signature stands for from the data files, and compare.

    The data must be the same files (their SHA-256 must match the signature's); a different evalcore
    version is named, and the numbers are recomputed all the same, within the work budget (``work_budget``
    seconds, else ``EVALCORE_WORK_BUDGET``, else 60: :func:`evalcore.work.command_budget` with ``always``, since a
    signature may come from anyone): a signature whose numbers would take longer is refused
    before anything is computed. Only the commands that sign their numbers (``report``, ``systems`` and
    :data:`TABLE_COMMANDS`) can be reproduced.
    """
    work_budget = command_budget(work_budget, always=True)  # (a signature may come from anyone)
    if signature.command not in ("report", "systems", *TABLE_COMMANDS):
        raise ParameterError(f"a signature names the command that computed its numbers: report, systems or one of "
                             f"{', '.join(TABLE_COMMANDS)}; got {shown(signature.command, 40)}")
    messages = []
    version = evalcore_version()
    if signature.version != version:
        messages.append(f"the signature was made by evalcore {signature.version}; this is evalcore {version}, "
                        "so small differences may come from changes between the versions")
    if len(files) != len(signature.data):
        raise ParameterError(f"the signature names {len(signature.data)} data file(s); got {len(files)}: "
                             f"{', '.join(map(str, files))}")
    hashes = [file_sha256(f) for f in files]
    bad = [(f, h, w) for f, h, w in zip(files, hashes, signature.data) if h != w]
    for f, h, w in bad:
        messages.append(f"data: {f} has SHA-256 {h[:16]}…, the signature names {w[:16]}…: not the same data")
    if bad:
        return Reproduction(signature, None, False, False, tuple(messages))
    if signature.command == "systems":  # (text files or a table, in the signature's order: evalcore.systems.cli)
        from ..systems.cli import reproduce_digest

        with redirect_stderr(io.StringIO()):
            digest = reproduce_digest(signature, files, work_budget=work_budget)
    elif signature.command == "report":
        settings, part = part_of(signature.settings)  # (a download's signature names its part: evalcore.report.parts)
        if settings.design is not None and settings.design.annotations is not None:
            raise ParameterError(f"the signature's labels come from the annotation sample "
                                 f"{settings.design.annotations!r} of a dashboard's database, not from the data file, "
                                 "so they cannot be recomputed from it; export the annotated set on the Annotate page "
                                 "and make the report from that file (evalcore report --annotated-sample)")
        with redirect_stderr(io.StringIO()):
            candidates = load_report_candidates(files[0], settings)
            if part is None:
                digest = results_digest(report_results(candidates, settings, budget=work_budget,
                                                        where=ON_THE_COMMAND_LINE))
            else:
                digest = table_digest(part.stem, part_table(candidates, settings, part, budget=work_budget))
    else:
        args = _parse_command(parser, argv_from_signature(parser, signature, files))
        args.work_budget = work_budget
        with redirect_stderr(io.StringIO()):
            digest = csv_digest(_capture(commands[signature.command], args))
    recomputed = Signature(version, signature.command, tuple(hashes), signature.settings, digest)
    match = digest == signature.numbers
    messages.append(f"numbers: {'match' if match else 'DO NOT match'} (signature {signature.numbers}, "
                    f"recomputed {digest})")
    return Reproduction(signature, recomputed, True, match, tuple(messages))


def cmd_reproduce(args: argparse.Namespace, *, parser: argparse.ArgumentParser,
                  commands: Mapping[str, Callable]) -> int:
    signature = parse_signature(args.signature_text)
    if signature.numbers is None:
        raise ParameterError("the signature has no 'numbers' field, so there is nothing to compare: the sidebar's "
                             "signature names the settings and the data only; reproduce the signature.txt of the "
                             "report (ZIP) or the signature of a download, which carry the digest of their numbers")
    result = reproduce(signature, args.files, parser=parser, commands=commands, work_budget=args.work_budget)
    for message in result.messages:
        print(message)
    if result.recomputed is not None:
        print(f"recomputed: {result.recomputed}")
        differences = [d for d in compare_signatures(signature, result.recomputed) if d.key not in ("numbers",)]
        for d in differences:
            print(f"  differs in {d.key}: {d.first} -> {d.second}")
    print("reproduced" if result.ok else "NOT reproduced")
    return 0 if result.ok else 1


COMMANDS = {"report": cmd_report}
