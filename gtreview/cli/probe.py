"""``gtreview probe``: memorisation and familiarity probes of local models.

Log-likelihoods need the logits of every position, which only a local model gives
(run in a worker process, as every local model is); server (openai:) and API
(anthropic:) models are refused in one line.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gtreview.cli.common import EXIT_OK, ID, CliError, add_json, add_project, int_at_least, open_cli_project, print_json

if TYPE_CHECKING:
    from gtreview.runs.probes import EngineFactory


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "probe", help="memorisation probes: does a fine-tune know the corpus passages by heart?"
    )
    parser.add_argument(
        "--model",
        type=str,
        action="append",
        default=[],
        required=True,
        metavar="LABEL=SPEC",
        help="a llama: or hf: model; the first is the base the others are compared with",
    )
    parser.add_argument(
        "--passages",
        type=int_at_least(2, "the intervals pair passages"),
        default=32,
        metavar="N",
        help="corpus passages to sample (default 32)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the passage sample, shuffles and bootstrap")
    parser.add_argument(
        "--controls",
        type=Path,
        default=None,
        metavar="FILE",
        help="held-out text (paragraphs separated by blank lines) instead of shuffled passages",
    )
    parser.add_argument(
        "--run",
        dest="run_id",
        type=ID,
        default=None,
        help="keep the probes with this pass, so its results and report show them beside the scores",
    )
    add_project(parser)
    add_json(parser)
    parser.set_defaults(handler=probe)


def _factories(specs: list[str]) -> dict[str, EngineFactory]:
    """LABEL=SPEC pairs to engine factories, with every spec checked (and its files
    found) before any model is loaded, so a typo in the last one fails at once."""
    from gtreview.inference.specs import BackendOpenError, ModelSpecError, local_files, parse_model_spec
    from gtreview.runs.probes import engine_factory

    factories: dict[str, EngineFactory] = {}
    for item in specs:
        label, sep, spec = item.partition("=")
        if not sep or not label.strip() or not spec.strip():
            raise CliError(f"--model {item!r}: expected LABEL=SPEC, e.g. base=llama:model.gguf")
        label = label.strip()
        if label in factories:
            raise CliError(f"--model label {label!r} given twice")
        try:
            parsed = parse_model_spec(spec)
            if parsed.kind not in ("llama", "hf"):
                raise CliError(
                    f"{label}: probes need per-token log-likelihoods, which only local llama: or hf: models give here"
                )
            local_files(parsed)  # files found (hf: downloaded) before any model loads
        except (ModelSpecError, BackendOpenError) as exc:
            raise CliError(f"{label}: {exc}") from None
        factories[label] = engine_factory(parsed)  # a worker process per model, in its turn
    if len(factories) < 2:
        raise CliError("name a base and at least one fine-tune: --model base=SPEC --model lora=SPEC")
    return factories


def _read_controls(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read {path}: {exc}") from None
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
    if not paragraphs:
        raise CliError(f"{path} holds no text to use as controls")
    return paragraphs


def probe(args: argparse.Namespace) -> int:
    from gtreview.inference.worker import WorkerDied
    from gtreview.runs.probes import MIN_WORDS, reading, run_probes_by_group, sample_passage_records
    from gtreview.store.corpus_repo import load_documents

    factories = _factories(args.model)
    controls = _read_controls(args.controls) if args.controls is not None else None
    project = open_cli_project(args)
    try:
        documents = load_documents(project.engine)
    finally:
        project.close()
    records = sample_passage_records(documents, args.passages, seed=args.seed)
    passages = [text for _, text in records]
    if len(passages) < 2:
        raise CliError(f"the project corpus has {len(passages)} passages of {MIN_WORDS}+ words; import reports first")
    groups = _section_groups(args, documents, [name for name, _ in records]) if args.run_id is not None else {}
    try:
        familiarity, recall, by_section = run_probes_by_group(
            factories, passages, groups, controls=controls, seed=args.seed
        )
    except (ValueError, WorkerDied) as exc:
        raise CliError(str(exc)) from None
    pointwise = None
    if args.run_id is not None:
        pointwise = _store_with_run(args, familiarity, recall, by_section)
    readings = reading(familiarity, recall, pointwise)
    if args.json:
        print_json(
            {
                "ok": True,
                "familiarity": familiarity.model_dump(mode="json"),
                "recall": recall.model_dump(mode="json"),
                "readings": [r.model_dump(mode="json") for r in readings],
            }
        )
        return EXIT_OK
    print(f"Familiarity: mean log-likelihood per token over {familiarity.n_passages} passages")
    print(f"  {'model':<16} {'passages':>10} {familiarity.control_kind + ' controls':>18}")
    for m in familiarity.models:
        print(f"  {m.label:<16} {_num(m.passages):>10} {_num(m.controls):>18}")
    print(
        f"Verbatim recall: greedy continuation of the first {recall.prompt_share:.0%} of each passage "
        f"(at most {recall.max_prompt_tokens} tokens), up to {recall.max_continuation_tokens} tokens"
    )
    print(
        f"  {'model':<16} {'longest run':>11} {str(recall.ngram) + '-gram':>8} {'exact':>7} {'control ' + str(recall.ngram) + '-gram':>16}"
    )
    for r in recall.models:
        print(
            f"  {r.label:<16} {_num(r.passages.longest_run):>11} {_num(r.passages.ngram_overlap):>8} "
            f"{_num(r.passages.exact_match_rate):>7} {_num(r.controls.ngram_overlap):>16}"
        )
    for item in readings:
        print(f"{item.label}: {item.text}")
        for line in item.evidence:
            print(f"  {line}")
    return EXIT_OK


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _section_groups(args: argparse.Namespace, documents: Any, passage_documents: list[str]) -> dict[str, list[int]]:
    """Passages grouped by the benchmark sections whose questions cite their documents."""
    from gtreview.corpus.locators import CorpusIndex
    from gtreview.results.loader import load_run_results

    project = open_cli_project(args)
    try:
        try:
            results = load_run_results(project.engine, args.run_id)
        except (KeyError, ValueError) as exc:
            raise CliError(str(exc).strip("'\"")) from None
    finally:
        project.close()
    index = CorpusIndex(documents)
    cited: dict[str, set[str]] = {}
    for question in results.questions:
        section = question.section or "(none)"
        for evidence in question.evidence:
            document = index.match(evidence.source or "")
            if document is not None:
                cited.setdefault(section, set()).add(document.name)
    return {
        section: [i for i, name in enumerate(passage_documents) if name in names]
        for section, names in sorted(cited.items())
    }


def _store_with_run(
    args: argparse.Namespace, familiarity: Any, recall: Any, by_section: dict[str, Any]
) -> dict[str, Any] | None:
    """Keep the probes with the pass and read them against its component-kind differences."""
    from gtreview.results.analysis import analyse
    from gtreview.results.loader import load_run_results
    from gtreview.runs.record import update_run_config

    project = open_cli_project(args)
    try:
        try:
            results = load_run_results(project.engine, args.run_id)
        except (KeyError, ValueError) as exc:
            raise CliError(str(exc).strip("'\"")) from None
        update_run_config(
            project.engine,
            args.run_id,
            probes={
                "familiarity": familiarity.model_dump(mode="json"),
                "recall": recall.model_dump(mode="json"),
                "sections": {
                    name: {"familiarity": fam.model_dump(mode="json"), "recall": rec.model_dump(mode="json")}
                    for name, (fam, rec) in by_section.items()
                },
            },
        )
        analysis = analyse(results, n_boot=500, n_perm=2000)
    finally:
        project.close()
    return {f.label: f.kind_differences for f in analysis.finetunes}
