"""Stage 1, ingest: files to text. Discovery, loaders (txt, md, rst, html, pdf), headings, tokens,
sentences and the chunkers that cut a document into ``(start, end)`` character spans. Imports nothing above it."""
