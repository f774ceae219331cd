"""Profiling with Nsight Compute (ncu): the program it profiles, running it, reading its figures."""
