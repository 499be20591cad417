"""The original (pipeline-mode) side, run in its worker (:mod:`~ndd_migrate.verify.worker`) once
the migrated side is done: ``pipe = f(...)``, ``build()``, ``run()`` as many steps, its random ops
fed the states the migrated side drew (:mod:`~ndd_migrate.verify.rng`) and its readers the same
seeds (:mod:`~ndd_migrate.verify.readers`); each step's outputs go to their own file.
"""

from __future__ import annotations

import contextlib

from ndd_migrate.verify.errors import SetupError
from ndd_migrate.verify.model import Settings, SideSpec
from ndd_migrate.verify.side import (
    BENCH_END,
    Status,
    load_side,
    step_path,
    write_pickle,
)


def run_original(job: dict, result: dict, status: Status) -> None:
    from nvidia.dali.pipeline import Pipeline

    from ndd_migrate.verify.lowering import NoCpuBackend, PipelineLowering
    from ndd_migrate.verify.outputs import pipeline_step
    from ndd_migrate.verify.readers import PipelineReaderSeeds
    from ndd_migrate.verify.rng import PipelineRandomFeeder

    settings: Settings = job["settings"]
    spec: SideSpec = job["spec"]
    lowered = job["lowered"]
    result["lowered"] = lowered
    device_id = None if lowered else settings.device_id
    planned_seeds = job["reader_seeds"]
    default_seed = settings.effective_reader_seed
    lowering = PipelineLowering() if lowered else None

    with lowering if lowering else contextlib.nullcontext():
        status("loading")
        func, kwargs = load_side(spec, settings, device_id, "original", result)

        def check_lowering():
            if lowering and lowering.no_cpu_backend:
                raise NoCpuBackend(lowering.no_cpu_backend, "original")

        def make_pipeline():
            pipe = func(*settings.args, **kwargs)
            check_lowering()
            if not isinstance(pipe, Pipeline):
                raise SetupError(
                    "bad-shape",
                    f"original `{spec.function}` returned a {type(pipe).__name__}, not a DALI "
                    "Pipeline (is it a @pipeline_def function?)",
                )
            return pipe

        def build(pipe):
            try:
                pipe.build()
            except Exception:
                check_lowering()  # a Pipeline subclass defines its graph in build()
                raise
            check_lowering()

        states = job["states"] if settings.align_random else None
        with (
            PipelineReaderSeeds(planned_seeds, default_seed, settings.align_order) as seeds,
            PipelineRandomFeeder(states) as feeder,
        ):
            status("defining the graph")
            pipe = make_pipeline()
            seed = getattr(pipe, "_seed", None)
            result["pipeline_seed"] = None if seed is None or seed == -1 else int(seed)
            status("build")
            build(pipe)
            ended = None
            for k in range(job["iterations"] + bool(job.get("probe_end"))):
                status(f"step {k}")
                try:
                    outputs = pipe.run()
                except StopIteration:  # iter_setup ran out (.ending)
                    ended = k
                    break
                if k < job["iterations"]:  # the probe only asks whether it ends
                    write_pickle(step_path(job["dir"], "original", k), pipeline_step(outputs))
            result["ended_at"] = ended
            result["iterations"] = job["iterations"] if ended is None else ended
            result["random_ops"] = [o.to_dict() for o in feeder.ops]
            result["devices"] = lowering.devices if lowering else []
            result["readers"] = [r.to_dict() for r in seeds.records]
            try:
                meta = pipe.reader_meta()
                result["reader_meta"] = [dict(v, name=k) for k, v in meta.items()]
            except Exception:
                result["reader_meta"] = []
            del pipe

        if settings.bench:
            from ndd_migrate.verify.timing import measure, pipeline_stepper

            status("benchmark")
            with PipelineReaderSeeds(planned_seeds, default_seed, settings.align_order):
                pipe = make_pipeline()
                stepper = pipeline_stepper(pipe)
            try:
                result["timing"] = measure(stepper, settings.bench).to_dict()
            except StopIteration:
                raise SetupError("bench", BENCH_END.format(settings.bench)) from None
            del pipe
