"""Renderers of the result models, for people and for programs: the only package that formats
text. One module per output or per part of one:

- marks: the words, styles and point format every renderer shares
- terminal: a Report (and the tables after it) in the terminal, with rich
- json_text: a Report as the JSON of `check --json` and of feedback files
- markdown: a Report as Markdown feedback for students
- sweep, profile: the measurements of a Report (tile-size sweep, Nsight Compute) as tables
- chart: the tile-size sweep as a PNG bar chart
- gradebook: the gradebook's and the performance scores' CSV rows
- summary: a batch's summary.md
- gradescope: Gradescope's results.json
- validation: `grader validate`'s table and JSON
- course_table: `grader list`'s table of exercises
- batch_console: what `grader batch` says while it runs
- notices: the one-line notices of the other commands

Text from a submission (names, messages, hints) is never read as markup: it goes into the
terminal as rich Text objects (or escaped), into Markdown escaped (grader/text_bounds.py), and
into CSV through grader/csv_safe.py."""
