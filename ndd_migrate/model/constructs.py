"""What a blocking problem is about: the vocabulary the model uses to record why a pipeline cannot
be converted, without naming the rule that reports it.

The analysis (``analysis.py``, ``legacy.py``, ``manual_uses.py``, ``expected_errors.py``, ``iterators.py``) records a
:class:`~ndd_migrate.model.analysis.Problem` about one of these constructs; each rule says which
constructs it reports (``RuleImpl.reports``), and the engine gives the problem that rule's code.
So a rule's code is written in its own module only.
"""

PIPELINE_FUNCTION = "pipeline function"  # the shape of a `@pipeline_def` function's body
PIPELINE_SUBCLASS = "pipeline subclass"  # a legacy `Pipeline` subclass's `__init__`/`define_graph`
OPS_OBJECT = "ops object"  # a legacy `ops.*` operator object and its calls
NO_DYNAMIC_FORM = "no dynamic-mode form"  # an operator dynamic mode does not have
CHECKPOINTING = "checkpointing"
EXTERNAL_SOURCE = "external source"
ITERATOR_SUBCLASS = "iterator subclass"  # given to a class deriving from a DALI iterator
SERIALIZED = "serialized"  # `pipe.serialize()`, `serialize_pipeline(pipe)`
AUTOSERIALIZED = "autoserialized"  # `@autoserialize` (Triton)
TF_DATASET = "tf dataset"  # TensorFlow's `DALIDataset(pipeline=pipe)`
FRAMEWORK_ITERATOR = "framework iterator"  # given to an iterator of another framework (MXNet, Paddle, JAX, TF)
API_CHECK = "api check"  # `pipe.enable_api_check(...)`: the program tests pipeline mode's API check
FED_RUN_RAISES = "fed run raises"  # `assert_raises(E, pipe.run)` on a pipeline fed by `feed_input`
BUILD_RAISES = "build raises"  # `@raises(E)` on a test that builds (or creates) a pipeline and never runs it
PYTHON_RUN_RAISES = "python run raises"  # `@raises(RuntimeError)` on a run of a pipeline with a Python operator
PYTHON_OUTPUTS_RAISE = (
    "python outputs raise"  # `@raises(Exception)` on a run of one with a several-output Python operator
)

#: Constructs that keep a pipeline in pipeline mode on purpose (not a gap of the migration).
KEEPING = frozenset(
    {
        SERIALIZED,
        AUTOSERIALIZED,
        TF_DATASET,
        FRAMEWORK_ITERATOR,
        API_CHECK,
        FED_RUN_RAISES,
        BUILD_RAISES,
        PYTHON_RUN_RAISES,
        PYTHON_OUTPUTS_RAISE,
    }
)
