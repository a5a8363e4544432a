"""Verdicts: is an answer the derivative (``tape check``), and do tape's numbers agree with a
second opinion (``--check``)."""
