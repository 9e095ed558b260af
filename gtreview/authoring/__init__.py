"""Staged drafting of benchmark questions and rubrics from the corpus.

A large model drafts in separate stages and contexts (evidence cards, questions only,
answers and rubrics, a verifier), every reply is checked by the program, and the
result is stored as a new set of drafts for the expert to vet. Entry points:
:func:`gtreview.authoring.pipeline.draft_set` and
:func:`gtreview.authoring.pipeline.save_drafts`.
"""
