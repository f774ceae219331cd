"""Kinds of check, the interface they share (base), and the registry that finds them by the key a
spec lists them under. One module per kind under kinds/; the modules beside it do the work
(correctness cases, diagnosis, answers, performance)."""
