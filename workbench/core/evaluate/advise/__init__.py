"""The strategy advisor: the best strategy for one question set's corpus at a context budget, chosen on half
the questions and confirmed on the other half (``advice`` runs it; ``split``, ``space``, ``costs``, ``optimise``
and ``confirm`` are its steps)."""
