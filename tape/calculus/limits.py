"""Every numeric limit and default of the library's calls, in one place (the command line's
options declare them as their bounds and defaults).
"""

#: highest --order of grad (Taylor mode; scripts and vector variables stop at order 10)
GRAD_MAX_ORDER = 30
#: highest --order of diff
DIFF_MAX_ORDER = 20
#: highest --order of diff --steps (each order is a whole derivation)
STEPS_MAX_ORDER = 4
#: highest --order of check
CHECK_MAX_ORDER = 10
#: the most derivatives ``tape plot`` draws (Taylor mode; nested tapes stop at 6)
PLOT_MAX_ORDER = 30
#: the highest order ``tape plot`` takes with nested tapes, for functions Taylor mode cannot do
PLOT_NESTED_MAX_ORDER = 6

#: highest --order of taylor (the polynomial's degree)
TAYLOR_MAX_ORDER = 30

#: the longest --timeout (a day): beyond it a time limit means nothing, and 1e308 overflows
MAX_TIMEOUT = 86_400.0

#: tolerances of a cross-check (--check): relative and absolute
RTOL = 1e-6
ATOL = 1e-9
#: seconds the symbolic work may take by default
TIMEOUT = 10.0

#: the dependent variable of an --implicit equation unless --dependent says otherwise
DEPENDENT = "y"

#: the most grid points of ``tape plot``
PLOT_MAX_POINTS = 100_000
