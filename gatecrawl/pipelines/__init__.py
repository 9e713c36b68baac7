"""Item pipelines, in ITEM_PIPELINES order:

- 300 ``ConvertPipeline``: runs the core's ``convert()`` (gate, extraction, Markdown,
  validation, packet) and drops failures with their typed reason;
- 900 ``ExportPipeline``: writes kept pages' Markdown and packets to the store, writes
  quarantine packets for dropped items (``item_dropped`` signal) and the run summary.
"""
