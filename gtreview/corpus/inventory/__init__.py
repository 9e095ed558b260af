"""The corpus exploration report: what a benchmark author should know before writing
questions over a corpus.

:func:`build_inventory` takes the parsed documents of a project (pure, no I/O, no Qt)
and reports six things, each by a simple method that its section of the report
names, so a reviewer can judge every finding rather than trust it:

1. source families (folder and kind, formats, extent, date range, issuing bodies);
2. terminology (names and domain words; :mod:`.terms`);
3. duplicated and near-duplicated passages (:mod:`.duplicates`);
4. variant names as a synonym table to confirm (:mod:`.variants`);
5. numeric conflicts between sources (:mod:`.quantities`,
   :mod:`.conflicts`);
6. thin areas: named subjects too sparsely covered to question fairly.

:func:`inventory_to_markdown` renders it for people; ``model_dump(mode="json")``
for machines. Everything is heuristic, tuned on English-language mining and
geological reports, and proposes rather than decides. Import from here, never from the
package's modules.
"""

from gtreview.corpus.inventory.build import (
    CorpusInventory,
    DocumentSummary,
    DocumentTerms,
    DuplicatePassage,
    Location,
    NumericConflict,
    QuantityValue,
    SourceFamily,
    Term,
    Terminology,
    ThinArea,
    VariantCluster,
    VariantForm,
    build_inventory,
    document_summary,
    inventory_to_markdown,
    source_families,
)

__all__ = [
    "CorpusInventory",
    "DocumentSummary",
    "DocumentTerms",
    "DuplicatePassage",
    "Location",
    "NumericConflict",
    "QuantityValue",
    "SourceFamily",
    "Term",
    "Terminology",
    "ThinArea",
    "VariantCluster",
    "VariantForm",
    "build_inventory",
    "document_summary",
    "inventory_to_markdown",
    "source_families",
]
