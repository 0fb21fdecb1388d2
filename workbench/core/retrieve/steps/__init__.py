"""Later steps of a strategy (rerank, section summaries, a per-document cap, whole documents): one module per
step, registered on import here (``steps.base``)."""

from workbench.core.retrieve.steps import llm_rerank, per_doc_cap, section_summaries, whole_documents
from workbench.core.retrieve.steps.base import STEP_TYPES, Step, register_step

__all__ = ["STEP_TYPES", "Step", "llm_rerank", "per_doc_cap", "register_step", "section_summaries", "whole_documents"]
