"""The comparison the documentation tests use: words exact, integers exact, floats within the
promised accuracy relative to the largest float on their line."""
from printed_output import differences, promised_accuracy


def test_a_float_within_the_promise_agrees_and_one_beyond_it_does_not():
    assert differences("13330.840700935163", "13330.840700932155", 1e-12) == []
    assert differences("13330.8407", "13330.840700932155", 1e-12)


def test_words_and_integers_are_compared_to_the_letter():
    assert differences("d^3f/dx^3 = 2.0", "d^4f/dx^4 = 2.0", 1e-8)
    assert differences("exit 1", "exit 2", 1e-8)
    assert differences("correct", "wrong", 1e-8)
    assert differences("x0:0 1.5", "x0:0 1.5000000000001", 1e-12) == []


def test_a_tiny_float_is_judged_against_the_scale_of_its_line():
    # a coefficient at the rounding level of its polynomial, printed differently by another CPU
    assert differences("1.0 + 3.1e-17*x", "1.0 + -2.0e-17*x".replace("+ -", "+ "), 1e-12) == []
    assert differences("3.1e-17", "2.0e-17", 1e-12)


def test_table_padding_follows_the_width_of_the_numbers():
    wide = "│ 0.49999999999999994 │\n└─────────────────────┘"
    narrow = "│ 0.5 │\n└─────┘"
    assert differences(wide, narrow, 1e-12) == []


def test_line_counts_must_agree():
    assert differences("1.0\n2.0", "1.0", 1e-12)


def test_higher_derivatives_are_held_to_taylor_modes_promise():
    assert promised_accuracy('tape grad "sin(x)" --order 8 --at 1') == 1e-8
    assert promised_accuracy('tape taylor "exp(x)" --at 0 --order 3') == 1e-8
    assert promised_accuracy('tape grad "sin(x)" --at 1') == 1e-12
    assert promised_accuracy('tape grad "sin(x)" --order 1 --at 1') == 1e-12
