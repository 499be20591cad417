"""NDD424: a pipeline parameter that reaches a decoder's ``device=`` never carries "mixed" into ndd."""

from __future__ import annotations

from tests.conftest import migrate_text

HEAD = "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2)\n"
BODY = (
    "    jpegs, labels = fn.readers.file(file_root=root)\n    return fn.decoders.image(jpegs, device=device), labels\n"
)


def test_literal_default_and_call_sites_rewritten_without_a_runtime_line():
    text, _ = migrate_text(
        HEAD + "def pipe(root, device='mixed'):\n" + BODY + "\np = pipe('/d', 'mixed')\nq = pipe('/d', device='cpu')\n"
    )
    assert "def pipe(root, device='gpu', *, batch_size=2):" in text
    assert "p = pipe('/d', 'gpu')" in text and "q = pipe('/d', device='cpu')" in text
    assert '== "mixed"' not in text


def test_conditional_call_site_value_rewritten():
    text, _ = migrate_text(
        HEAD + "def pipe(root, device):\n" + BODY + "\np = pipe('/d', device='mixed' if GPU else 'cpu')\n"
    )
    assert "p = pipe('/d', device='gpu' if GPU else 'cpu')" in text
    assert '== "mixed"' not in text


def test_runtime_value_gets_the_mapping_line_after_the_docstring():
    source = (
        HEAD + 'def pipe(root, device="mixed"):\n    """Doc."""\n' + BODY + "\np = pipe('/d', device=args.device)\n"
    )
    text, result = migrate_text(source)
    assert '    """Doc."""\n    device = "gpu" if device == "mixed" else device\n' in text
    assert 'def pipe(root, device="gpu", *, batch_size=2):' in text
    assert migrate_text(text)[0] == text
    assert any(d.code == "NDD424" and d.fixed for d in result.diagnostics)


def test_no_call_site_and_no_default_gets_the_line():
    text, _ = migrate_text(HEAD + "def pipe(root, device):\n" + BODY)
    assert 'device = "gpu" if device == "mixed" else device' in text


def test_parameter_of_an_op_without_mixed_backend_untouched():
    source = (
        HEAD
        + "def pipe(root, device='cpu'):\n    (x,) = fn.readers.numpy(file_root=root)\n    return fn.resize(x, size=[4], device=device)\n\np = pipe('/d', device=dev)\n"
    )
    text, result = migrate_text(source)
    assert not [d for d in result.diagnostics if d.code == "NDD424"]
    assert '== "mixed"' not in text


CONST = "from nvidia.dali import fn, pipeline_def\n\nDEVICE = 'mixed'\n\n\n@pipeline_def(batch_size=2)\n"
CONST_BODY = "def pipe(root):\n    jpegs, labels = fn.readers.file(file_root=root)\n    return fn.decoders.image(jpegs, device=DEVICE), labels\n"


def test_module_constant_read_only_as_a_decoder_device_rewritten():
    text, _ = migrate_text(CONST + CONST_BODY)
    assert "DEVICE = 'gpu'\n" in text and "device=DEVICE" in text


def test_module_constant_read_elsewhere_keeps_its_value_and_the_decoder_maps_it():
    text, result = migrate_text(CONST + CONST_BODY + "\nprint(DEVICE)\n")
    assert "DEVICE = 'mixed'\n" in text and 'device="gpu" if DEVICE == "mixed" else DEVICE' in text
    assert [d for d in result.diagnostics if d.needs_human] == []


def test_device_given_through_a_name_holding_the_function():
    """``make(root, device=...)`` in ``for make in (pipe, other)``: a call site of each; "mixed" given by
    keyword is rewritten there, given by position it is mapped in the function (another function the
    name holds may take that position otherwise)."""
    other = "@pipeline_def(batch_size=2)\ndef other(root, device='cpu'):\n" + BODY
    loop = "\nfor make in (pipe, other):\n    a = make('/d', device='mixed')\n"
    text, _ = migrate_text(HEAD + "def pipe(root, device='cpu'):\n" + BODY + "\n\n" + other + loop)
    assert "a = make('/d', device='gpu')" in text and '== "mixed"' not in text
    loop = "\nfor make in (pipe, other):\n    a = make('/d', 'mixed')\n"
    text, _ = migrate_text(HEAD + "def pipe(root, device='cpu'):\n" + BODY + "\n\n" + other + loop)
    assert "a = make('/d', 'mixed')" in text and text.count('device = "gpu" if device == "mixed" else device') == 2


LOCAL = (
    "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2)\n"
    "def pipe(root, cpu=False):\n"
    "    jpegs, labels = fn.readers.file(file_root=root)\n"
    '    decoder_device = "cpu" if cpu else "mixed"\n'
    "    images = fn.decoders.image(jpegs, device=decoder_device)\n"
    "{more}"
    "    return images, labels\n"
)


def test_a_local_holding_mixed_read_only_as_a_decoder_device_is_rewritten():
    """The shape of DALI's ImageNet example: a conditional local, not a parameter or a constant."""
    text, result = migrate_text(LOCAL.format(more=""))
    assert 'decoder_device = "cpu" if cpu else "gpu"\n' in text and "device=decoder_device" in text
    assert [d for d in result.diagnostics if d.needs_human] == []


def test_a_local_holding_mixed_read_elsewhere_too_keeps_its_value_and_the_decoder_maps_it():
    """The ResNet-50 example's lineage: `padding = ... if decoder_device == "mixed" else 0` needs the
    value as it was; only the decoder's `device=` may not be "mixed"."""
    more = '    padding = 211025920 if decoder_device == "mixed" else 0\n'
    text, result = migrate_text(
        LOCAL.format(more=more).replace(
            "device=decoder_device)", "device=decoder_device, device_memory_padding=padding)"
        )
    )
    assert 'decoder_device = "cpu" if cpu else "mixed"' in text and 'if decoder_device == "mixed" else 0' in text
    assert 'device="gpu" if decoder_device == "mixed" else decoder_device' in text
    assert [d for d in result.diagnostics if d.needs_human] == []


HELPER = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "def transform(jpegs, cpu):\n"
    '    decoder_device = "cpu" if cpu else "mixed"\n'
    '    hint = 5980 if decoder_device == "mixed" else 0\n'
    "    return fn.decoders.image(jpegs, device=decoder_device, preallocate_width_hint=hint)\n\n\n"
    "@pipeline_def(batch_size=2)\n"
    "def pipe(root, cpu=False):\n"
    "    jpegs, labels = fn.readers.file(file_root=root)\n"
    "    return transform(jpegs, cpu), labels\n"
)


def test_a_local_holding_mixed_in_a_graph_helper_is_mapped_too():
    """cassandra-dali-plugin's shape: the "mixed" local lives in a helper the pipeline calls."""
    text, result = migrate_text(HELPER)
    assert 'device="gpu" if decoder_device == "mixed" else decoder_device' in text
    assert [d for d in result.diagnostics if d.needs_human] == []


LEGACY_DEVICE = """\
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class DecoderPipeline(Pipeline):
    def __init__(self, data_path, batch_size, num_threads, device_id, device):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(file_root=data_path)
        self.decode = ops.decoders.Image(device=device, output_type=types.RGB)
        self.resize = ops.Resize(device=device, resize_x=8, resize_y=8)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.resize(self.decode(jpegs)), labels


for device in ("cpu", "mixed"):
    pipe = DecoderPipeline("/data", 2, 1, 0, device)
    pipe.build()
    print(pipe.run())
"""


def test_a_legacy_init_parameter_given_as_a_decoder_device_is_mapped_at_the_decoder():
    """`ops.decoders.Image(device=device)` with `device` a parameter of `__init__`: a caller may give
    "mixed" (this one does, through a loop), which dynamic mode rejects; the decoder gets it mapped.
    `ops.Resize` has no mixed backend: a "mixed" there failed in pipeline mode too, and stays as written."""
    out, result = migrate_text(LEGACY_DEVICE)
    assert 'ndd.decoders.image(jpegs, device="gpu" if device == "mixed" else device,' in out
    assert out.count('"gpu" if device == "mixed"') == 1  # not at `ndd.resize`
    assert not [d for d in result.diagnostics if d.needs_human]
    compile(out, "migrated.py", "exec")
