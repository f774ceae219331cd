"""Batch grading: discovering submissions, the results store, the outputs instructors read."""
