"""Exports of the bank for reading and for other tools: `anki` (an .apkg deck, one note type per question
type), `markdown` (one readable file per topic), and `render` (the text both show: a language picked, math
converted, Markdown rendered to HTML with raw HTML off). They read the bank, never the progress store."""
