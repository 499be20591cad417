"""What ndd-migrate knows of DALI without importing it: the operator table generated from DALI's
schemas and the pipeline-level arguments.
"""
