"""An update read line by line: where each line goes in the file (``alignment.align_update``), for any file.

The modules go bottom up: ``placement`` (the result), ``reading`` (code read line by line, no parser),
``likeness`` (is a new line an old one rewritten), ``fresh`` (lines that are new whole), ``rewrites`` (the
file lines new lines replace), ``extents`` (what each marker keeps), ``passes`` (blank lines, braces and
context after the anchors), ``unanchored`` (updates no distinctive line places), ``checks`` (what a merge is
checked for) and ``alignment``, which runs them in order.
"""
