"""What a value of a pipeline's code is: its outputs, returns, ``self`` attributes, parameters called
as functions, build-time statements, graph constants and graph code, and the data flow of
hand-written dynamic-mode code.
"""
