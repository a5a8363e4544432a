"""Derivatives of expressions and scripts: numbers at many points, symbolic, step by step,
implicit, Taylor polynomials, plots, traces."""
