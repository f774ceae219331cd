"""A grading job crosses to the child as JSON and arrives the same, spec included."""

from __future__ import annotations

import json

from grader.expectations import Expectation
from grader.job import Job
from grader.spec import ExerciseSpec, load_spec
from tests.conftest import ROOT


def test_a_job_arrives_as_it_was_sent_and_its_spec_validates_again() -> None:
    spec = load_spec(ROOT / "exercises/ex2-tile-sweep/spec.yaml")
    job = Job(
        spec=spec.model_dump(), source_text="__global__ void k() {}", display_name="k.cu",
        seed=7, done=("compile",), answers_text="gpu: H200\n", env={"CUDA_VISIBLE_DEVICES": "1"},
        stop_at=(Expectation("correctness", "outside A or B"),),
    )  # fmt: skip
    sent = json.loads(json.dumps(job.to_json()))
    again = Job.from_json(sent)
    assert again.done == ("compile",) and again.env == job.env  # tuples and all
    assert again.stop_at == job.stop_at
    assert json.loads(json.dumps(again.to_json())) == sent
    assert ExerciseSpec.model_validate(again.spec) == spec
