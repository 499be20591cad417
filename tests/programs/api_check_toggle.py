# expect: blocked NDD905
# data: none
"""A test of pipeline mode's API check: mixing `run()` with `schedule_run()`/`outputs()` fails until
`enable_api_check(False)`. Dynamic mode has none of these methods: the pipeline stays as it is."""

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=11)
def counter():
    return fn.random.uniform(range=[0.0, 1.0], shape=[2])


def main():
    pipe = counter()
    pipe.build()
    pipe.run()
    try:
        pipe.schedule_run()
        print("mixed without complaint")
    except RuntimeError:
        print("API check refused schedule_run after run")
    pipe.enable_api_check(False)
    pipe.schedule_run()
    print(len(pipe.outputs()[0]))


if __name__ == "__main__":
    main()
