"""Static scan for silent training bugs: no user code runs.

``analyze`` checks one source text; ``engine`` walks trees (ripgrep narrowing,
parallel workers, a content-hash cache, notebooks); ``rules/`` holds the rules.
"""
