"""GradientTape semantics and error cases (SPEC section 2), checked against closed forms."""
import collections
import gc
import warnings
import weakref

import numpy as np
import pytest

import tape
from tape.engine import tape as tape_module


def _c(v, dtype=None):
    return tape.constant(v, dtype=dtype)


# -- non-persistent tapes, stop_recording, reset ----------------------------------------------
def test_second_gradient_call_on_non_persistent_tape_raises():
    x = _c(3.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * x
    t.gradient(y, x)
    with pytest.raises(RuntimeError, match="persistent"):
        t.gradient(y, x)
    with pytest.raises(RuntimeError):
        t.jacobian(y, x)


@pytest.mark.parametrize("first", ["gradient", "jacobian", "batch_jacobian"])
@pytest.mark.parametrize("second", ["gradient", "jacobian", "batch_jacobian"])
def test_used_non_persistent_tape_message(first, second):
    x = _c([[1.0, 2.0]])
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * x
    getattr(t, first)(y, x)
    with pytest.raises(RuntimeError) as info:
        getattr(t, second)(y, x)
    message = str(info.value)
    # TensorFlow's own words come first: TensorFlow's tests and user code match on them
    assert message.startswith("A non-persistent GradientTape can only be used to compute one "
                              "set of gradients (or jacobians)"), message
    # TensorFlow 2.1-2.3 worded it "GradientTape.gradient can only be called once ..."
    assert f"GradientTape.{second} can only be called once" in message, message
    # and what to do instead
    assert "GradientTape(persistent=True)" in message and "new tape" in message, message


def test_jacobian_then_gradient_on_non_persistent_tape_raises():
    x = _c([1.0, 2.0])
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * x
    t.jacobian(y, x)
    with pytest.raises(RuntimeError):
        t.gradient(y, x)


def test_persistent_tape_allows_many_calls():
    x = _c([1.0, 3.0])
    with tape.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
        z = y * y
    for _ in range(3):
        np.testing.assert_allclose(t.gradient(z, x).numpy(), 4 * x.numpy() ** 3)
        np.testing.assert_allclose(t.gradient(y, x).numpy(), 2 * x.numpy())
    np.testing.assert_allclose(t.jacobian(y, x).numpy(), np.diag(2 * x.numpy()))


def test_stop_recording_outside_recording_raises():
    t = tape.GradientTape()
    with pytest.raises(RuntimeError):
        with t.stop_recording():
            pass
    with t:
        pass
    with pytest.raises(RuntimeError):      # after the context exited
        with t.stop_recording():
            pass


def test_stop_recording_skips_ops():
    x = _c(2.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * x
        with t.stop_recording():
            z = y * x           # not recorded
        w = y + z
    # w = y + const: dw/dx = 2x
    np.testing.assert_allclose(t.gradient(w, x).numpy(), 4.0)


def test_stop_recording_only_stops_that_tape():
    x = _c(2.0)
    with tape.GradientTape() as outer:
        outer.watch(x)
        with tape.GradientTape() as inner:
            inner.watch(x)
            with inner.stop_recording():
                y = x * x * x
    assert inner.gradient(y, x) is None
    np.testing.assert_allclose(outer.gradient(y, x).numpy(), 12.0)


def test_reset_forgets_everything():
    x = _c(2.0)
    v = tape.Variable(1.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * x * v
        t.reset()
        z = v * 3.0
        total = y + z
    gx, gv = t.gradient(total, [x, v])
    assert gx is None
    np.testing.assert_allclose(gv.numpy(), 3.0)
    assert list(t.watched_variables()) == [v]


def test_gradient_inside_non_persistent_context_stops_recording():
    x = _c(2.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * x
        g = t.gradient(y, x)
        z = g * x          # not recorded any more
    np.testing.assert_allclose(g.numpy(), 4.0)
    assert z is not None


def test_gradient_inside_persistent_context_is_recorded():
    x = _c(1.5)
    with tape.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x ** 3
        dy = t.gradient(y, x)          # 3 x**2, recorded on t itself
    d2y = t.gradient(dy, x)
    np.testing.assert_allclose(dy.numpy(), 3 * 1.5 ** 2)
    np.testing.assert_allclose(d2y.numpy(), 6 * 1.5)


def test_tape_cannot_be_entered_twice_at_once():
    t = tape.GradientTape()
    with t:
        with pytest.raises(ValueError):
            with t:
                pass


# -- unconnected gradients --------------------------------------------------------------------
def test_unknown_unconnected_gradients_raises_value_error():
    x = _c(1.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * 2.0
    with pytest.raises(ValueError, match="unconnected_gradients"):
        t.gradient(y, x, unconnected_gradients="zeros")


def test_unknown_unconnected_gradients_in_jacobian():
    x = _c([1.0])
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * 2.0
    with pytest.raises(ValueError):
        t.jacobian(y, x, unconnected_gradients="bogus")


@pytest.mark.parametrize("mode", [tape.UnconnectedGradients.ZERO, "zero"])
def test_unconnected_zero(mode):
    x = tape.Variable([[1.0, 2.0, 3.0]])
    x32 = tape.constant([1.0, 2.0], dtype=tape.float32)
    y = tape.Variable(3.0)
    with tape.GradientTape() as t:
        t.watch(x32)
        z = y ** 2
    gx, g32, gy = t.gradient(z, [x, x32, y], unconnected_gradients=mode)
    assert gx.shape == (1, 3) and gx.dtype == tape.float64
    np.testing.assert_array_equal(gx.numpy(), np.zeros((1, 3)))
    assert g32.shape == (2,) and g32.dtype == tape.float32
    np.testing.assert_allclose(gy.numpy(), 6.0)


@pytest.mark.parametrize("mode", [tape.UnconnectedGradients.NONE, "none"])
def test_unconnected_none(mode):
    x, y = tape.Variable(1.0), tape.Variable(2.0)
    with tape.GradientTape() as t:
        z = y * y
    assert t.gradient(z, [x, y], unconnected_gradients=mode)[0] is None


def test_unconnected_zero_jacobian():
    x = _c([1.0, 2.0])
    u = _c([5.0, 6.0, 7.0])
    with tape.GradientTape() as t:
        t.watch([x, u])
        y = x * x
    j = t.jacobian(y, u, unconnected_gradients=tape.UnconnectedGradients.ZERO)
    assert j.shape == (2, 3)
    np.testing.assert_array_equal(j.numpy(), np.zeros((2, 3)))


# -- primitives, RegisterGradient, NotDifferentiable -------------------------------------------
def test_primitive_without_gradient_raises_lookup_error():
    op = tape.primitive(lambda a: a * 2.0, name="TestsNoGradOp")
    x = _c([1.0, 2.0])
    with tape.GradientTape() as t:
        t.watch(x)
        y = op(x)
    with pytest.raises(LookupError) as exc:
        t.gradient(y, x)
    assert str(exc.value).strip("'\"") == "gradient registry has no entry for: TestsNoGradOp"


def test_primitive_default_name_is_function_name():
    def tests_my_scaling(a):
        return a * 3.0
    op = tape.primitive(tests_my_scaling)
    x = _c(1.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = op(x)
    with pytest.raises(LookupError, match="gradient registry has no entry for: tests_my_scaling"):
        t.gradient(y, x)


def test_primitive_not_reached_does_not_raise():
    op = tape.primitive(lambda a: a * 2.0, name="TestsNoGradOp2")
    x, u = _c(1.0), _c(2.0)
    with tape.GradientTape() as t:
        t.watch([x, u])
        side = op(u)
        y = x * x
    np.testing.assert_allclose(t.gradient(y, x).numpy(), 2.0)
    assert side is not None


def test_not_differentiable_gives_none():
    op = tape.primitive(lambda a: np.floor(a * 2.0), name="TestsStep")
    tape.NotDifferentiable("TestsStep")
    x = _c([0.3, 1.7])
    with tape.GradientTape(persistent=True) as t:
        t.watch(x)
        y = op(x)
        z = op(x) * x + x
    assert t.gradient(y, x) is None
    np.testing.assert_allclose(t.gradient(z, x).numpy(), np.floor(x.numpy() * 2.0) + 1.0)


def test_register_gradient_first_and_second_order():
    cube = tape.primitive(lambda a: a ** 3, name="TestsCube")

    @tape.RegisterGradient("TestsCube")
    def _cube_grad(op, g):
        assert op.inputs[0] is not None and op.outputs[0] is not None
        return [g * 3.0 * op.inputs[0] ** 2]

    x = _c([0.5, -2.0])
    with tape.GradientTape() as t2:
        t2.watch(x)
        with tape.GradientTape() as t1:
            t1.watch(x)
            y = cube(x)
        dy = t1.gradient(y, x)
    d2y = t2.gradient(dy, x)
    np.testing.assert_allclose(y.numpy(), x.numpy() ** 3)
    np.testing.assert_allclose(dy.numpy(), 3 * x.numpy() ** 2)
    np.testing.assert_allclose(d2y.numpy(), 6 * x.numpy())


def test_register_gradient_overrides_a_built_in_op_on_every_path():
    # Ops resolve their rules once (Primitive.fast / nondiff); a later registration must reach
    # ops that already exist, on the raw first-order path and the recorded tensor path alike.
    from tape.engine import registry
    saved = registry._GRADIENTS["Sin"], registry._FAST_GRADIENTS["Sin"]
    x = _c(0.3)
    try:
        @tape.RegisterGradient("Sin")
        def _seven(op, g):
            return [g * 7.0]

        with tape.GradientTape() as outer:
            outer.watch(x)
            with tape.GradientTape() as inner:
                inner.watch(x)
                y = tape.sin(x) * x
            recorded = inner.gradient(y, x)          # tensor rules (outer records the sweep)
        with tape.GradientTape() as t:
            t.watch(x)
            y = tape.sin(x) * x
        raw = t.gradient(y, x)                       # raw NumPy rules
        want = 7.0 * 0.3 + np.sin(0.3)
        np.testing.assert_allclose([recorded.numpy(), raw.numpy()], [want, want], rtol=1e-15)
    finally:
        registry._GRADIENTS["Sin"], registry._FAST_GRADIENTS["Sin"] = saved
        registry._refresh("Sin")
    with tape.GradientTape() as t:
        t.watch(x)
        y = tape.sin(x)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), np.cos(0.3), rtol=1e-15)


def test_not_differentiable_after_the_op_was_made():
    double = tape.primitive(lambda a: 2.0 * a, name="TestsLateStop")
    tape.RegisterGradient("TestsLateStop")(lambda op, g: [2.0 * g])
    x = _c(1.5)
    with tape.GradientTape() as t:
        t.watch(x)
        y = double(x) + x
    np.testing.assert_allclose(t.gradient(y, x).numpy(), 3.0)
    tape.NotDifferentiable("TestsLateStop")
    with tape.GradientTape() as t:
        t.watch(x)
        y = double(x) + x
    np.testing.assert_allclose(t.gradient(y, x).numpy(), 1.0)


def test_primitive_with_attrs_and_two_inputs():
    scaled = tape.primitive(lambda a, b, scale=1.0: scale * a * b, name="TestsScaledMul")

    @tape.RegisterGradient("TestsScaledMul")
    def _grad(op, g):
        a, b = op.inputs
        s = op.attrs["scale"]
        return [g * s * b, g * s * a]

    a, b = _c([1.0, 2.0]), _c(3.0)
    with tape.GradientTape() as t:
        t.watch([a, b])
        y = scaled(a, b, scale=2.0)
    ga, gb = t.gradient(y, [a, b])
    np.testing.assert_allclose(ga.numpy(), [6.0, 6.0])
    assert gb.shape == ()       # reduced back to b's shape
    np.testing.assert_allclose(gb.numpy(), 2.0 * 3.0)


# -- integer and bool tensors ---------------------------------------------------------------------
def test_watching_an_integer_tensor_warns():
    x = _c(10)
    with tape.GradientTape() as t:
        with pytest.warns(UserWarning, match="int64"):
            t.watch(x)


def test_integer_target_and_source_warn_and_give_none():
    x = _c(10)
    f = _c(2.0)
    with tape.GradientTape() as t:
        t.watch(f)
        y = x * x
        z = f * f
    with pytest.warns(UserWarning) as rec:
        gy, gf = t.gradient([y, z], [x, f])
    assert gy is None
    np.testing.assert_allclose(gf.numpy(), 4.0)
    msgs = [str(w.message) for w in rec]
    assert any("target" in m and "int64" in m for m in msgs), msgs
    assert any("source" in m and "int64" in m for m in msgs), msgs


def test_int32_and_bool_sources_warn():
    for value in (_c([1, 2], dtype=tape.int32), _c([True, False])):
        f = _c(1.0)
        with tape.GradientTape() as t:
            t.watch(f)
            y = f * 2.0
        with pytest.warns(UserWarning, match=value.dtype.name):
            g = t.gradient(y, value)
        assert g is None


def test_dtype_warning_points_at_the_callers_line():
    x = _c(10)
    with tape.GradientTape() as t:
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            t.watch(x)
    assert rec and rec[0].filename == __file__, (rec[0].filename if rec else None)


def test_integer_variable_is_not_watched_automatically():
    v = tape.Variable(3)
    w = tape.Variable(2.0)
    with tape.GradientTape() as t:
        y = tape.cast(v, tape.float64) * w
    assert list(t.watched_variables()) == [w]


# -- watching ---------------------------------------------------------------------------------------
def test_watched_variables_in_creation_order():
    a, b, c = tape.Variable(1.0, name="a"), tape.Variable(2.0, name="b"), tape.Variable(3.0, name="c")
    frozen = tape.Variable(4.0, name="frozen", trainable=False)
    x = _c(5.0)
    with tape.GradientTape() as t:
        y = c * 2.0
        t.watch(x)                  # a tensor: not a variable
        y = y + a * b + c * a
        t.watch(frozen)             # a non-trainable variable, explicitly watched
        y = y + frozen
    assert [v.name for v in t.watched_variables()] == ["a:0", "b:0", "c:0", "frozen:0"]


def test_non_trainable_variable_only_when_watched():
    frozen = tape.Variable(4.0, trainable=False)
    with tape.GradientTape() as t:
        y = frozen * frozen
    assert t.gradient(y, frozen) is None
    with tape.GradientTape() as t:
        t.watch(frozen)
        y = frozen * frozen
    np.testing.assert_allclose(t.gradient(y, frozen).numpy(), 8.0)


def test_tensor_only_when_watched():
    x = _c(2.0)
    with tape.GradientTape() as t:
        y = x * x
    assert t.gradient(y, x) is None


def test_watch_a_nest():
    a, b, c = _c(1.0), _c(2.0), _c(3.0)
    with tape.GradientTape() as t:
        t.watch({"a": a, "rest": [b, (c,)]})
        y = a * b * c
    g = t.gradient(y, [a, b, c])
    np.testing.assert_allclose([float(v) for v in g], [6.0, 3.0, 2.0])


def test_watch_rejects_non_tensors():
    with tape.GradientTape() as t:
        with pytest.raises(ValueError):
            t.watch([1.0, 2.0])


def test_watch_accessed_variables_false():
    v, w = tape.Variable(2.0), tape.Variable(3.0)
    with tape.GradientTape(watch_accessed_variables=False) as t:
        t.watch(w)
        y = v * w
    gv, gw = t.gradient(y, [v, w])
    assert gv is None
    np.testing.assert_allclose(gw.numpy(), 2.0)
    assert list(t.watched_variables()) == [w]


# -- targets, sources, output_gradients -----------------------------------------------------------
Pair = collections.namedtuple("Pair", "first second")


def test_nested_sources_keep_their_structure():
    a, b, c, d = _c(1.0), _c([1.0, 2.0]), _c([[1.0], [2.0]]), tape.Variable(0.5)
    with tape.GradientTape() as t:
        t.watch([a, b, c])
        y = a * tape.reduce_sum(b) + tape.reduce_sum(c * c) + d * 4.0
    g = t.gradient(y, {"a": a, "rest": [b, (c, Pair(d, a))]})
    assert isinstance(g, dict) and set(g) == {"a", "rest"}
    assert isinstance(g["rest"], list) and isinstance(g["rest"][1], tuple)
    assert isinstance(g["rest"][1][1], Pair)
    np.testing.assert_allclose(g["a"].numpy(), 3.0)
    np.testing.assert_allclose(g["rest"][0].numpy(), [1.0, 1.0])
    np.testing.assert_allclose(g["rest"][1][0].numpy(), [[2.0], [4.0]])
    np.testing.assert_allclose(g["rest"][1][1].first.numpy(), 4.0)
    np.testing.assert_allclose(g["rest"][1][1].second.numpy(), 3.0)
    assert g["rest"][1][0].shape == (2, 1)


def test_single_source_gives_a_single_gradient_and_tuple_gives_tuple():
    x = _c(2.0)
    with tape.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
    assert isinstance(t.gradient(y, x), tape.Tensor)
    g = t.gradient(y, (x,))
    assert isinstance(g, tuple) and len(g) == 1


def test_same_source_twice():
    x = _c(2.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = x ** 3
    g1, g2 = t.gradient(y, [x, x])
    np.testing.assert_allclose([float(g1), float(g2)], [12.0, 12.0])


def test_nested_targets_are_summed():
    x = tape.Variable([1.0, 2.0])
    with tape.GradientTape() as t:
        y = {"a": x * x, "b": [x * 3.0, (tape.reduce_sum(x),)]}
    np.testing.assert_allclose(t.gradient(y, x).numpy(), 2 * x.numpy() + 3.0 + 1.0)


def test_output_gradients_weight_the_targets():
    x = _c([1.0, 2.0, 3.0])
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * x
    w = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(t.gradient(y, x, output_gradients=_c(w)).numpy(), w * 2 * x.numpy())


def test_output_gradients_for_several_targets():
    x = _c(2.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y1 = x * x
        y2 = x * 3.0
    g = t.gradient([y1, y2], x, output_gradients=[_c(10.0), _c(-1.0)])
    np.testing.assert_allclose(g.numpy(), 10.0 * 4.0 - 3.0)


def test_output_gradients_shape_mismatch_names_both_shapes():
    x = _c([1.0, 2.0, 3.0])
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * x
    with pytest.raises(ValueError) as exc:
        t.gradient(y, x, output_gradients=_c([1.0, 2.0]))
    assert "(2,)" in str(exc.value) and "(3,)" in str(exc.value)


def test_variable_as_target_gives_ones():
    v = tape.Variable([[1.0, 2.0, 3.0]])
    with tape.GradientTape() as t:
        y = v * 2.0
    g = t.gradient(v, v)
    assert type(g) is tape.Tensor
    np.testing.assert_array_equal(g.numpy(), np.ones((1, 3)))


def test_unread_variable_as_target_gives_ones():
    # as in the TF guide (seed 001, control flow): `result = v0` with v0 never read by an op
    v0 = tape.Variable(2.0)
    with tape.GradientTape() as t:
        result = v0
    g = t.gradient(result, v0)
    assert g is not None and type(g) is tape.Tensor
    np.testing.assert_allclose(g.numpy(), 1.0)


def test_watched_tensor_as_target_gives_ones():
    x = _c([1.0, 2.0])
    with tape.GradientTape() as t:
        t.watch(x)
    np.testing.assert_array_equal(t.gradient(x, x).numpy(), [1.0, 1.0])


def test_intermediate_value_as_source():
    x = _c(3.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * x
        z = tape.sin(y) + y
    np.testing.assert_allclose(t.gradient(z, y).numpy(), np.cos(9.0) + 1.0)


def test_gradients_are_dense_with_the_source_shape():
    x = _c(np.arange(12.0).reshape(4, 3))
    with tape.GradientTape() as t:
        t.watch(x)
        y = tape.gather(x, [3, 3, 0])
    g = t.gradient(y, x)
    assert type(g) is tape.Tensor and g.shape == (4, 3)
    np.testing.assert_array_equal(g.numpy(), [[1, 1, 1], [0, 0, 0], [0, 0, 0], [2, 2, 2]])


def test_broadcast_gradients_are_reduced_to_the_source_shape():
    a, b = _c(np.ones((1, 3))), _c(np.ones((2, 1)))
    s = _c(2.0)
    with tape.GradientTape() as t:
        t.watch([a, b, s])
        y = a * b * s
    ga, gb, gs = t.gradient(y, [a, b, s])
    assert ga.shape == (1, 3) and gb.shape == (2, 1) and gs.shape == ()
    np.testing.assert_allclose(ga.numpy(), [[4.0, 4.0, 4.0]])
    np.testing.assert_allclose(gb.numpy(), [[6.0], [6.0]])
    np.testing.assert_allclose(gs.numpy(), 6.0)


# -- state ------------------------------------------------------------------------------------------
def test_assign_add_gives_no_gradient_to_its_argument():
    x0, x1 = tape.Variable(3.0), tape.Variable(0.0)
    with tape.GradientTape() as t:
        x1.assign_add(x0)
        y = x1 ** 2
    g0, g1 = t.gradient(y, [x0, x1])
    assert g0 is None
    np.testing.assert_allclose(g1.numpy(), 6.0)


def test_assign_and_assign_sub():
    v = tape.Variable([1.0, 2.0])
    v.assign([3.0, 4.0])
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
    v.assign_sub([1.0, 1.0])
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])
    with pytest.raises(ValueError) as exc:
        v.assign([1.0, 2.0, 3.0])
    assert "(3,)" in str(exc.value) and "(2,)" in str(exc.value)


def test_value_read_before_assign_keeps_its_gradient():
    v = tape.Variable(2.0)
    with tape.GradientTape() as t:
        y = v * v          # uses v = 2
        v.assign(10.0)
    np.testing.assert_allclose(t.gradient(y, v).numpy(), 4.0)


def test_assign_protects_every_live_tape_among_many_dead_ones():
    # the registry of live tapes drops dead ones now and then; the ones alive must all stay
    v = tape.Variable(2.0)
    kept = []
    for i in range(500):
        with tape.GradientTape(persistent=True) as t:
            y = v * v * float(i)
        if i % 97 == 0:
            kept.append((t, y, float(i)))
    v.assign(10.0)
    for t, y, scale in kept:
        np.testing.assert_allclose(t.gradient(y, v).numpy(), 4.0 * scale)


def test_variable_plus_tensor_is_a_tensor():
    v = tape.Variable(2.0, name="x2")
    r = v + 1.0
    assert type(r) is tape.Tensor
    assert type(v.read_value()) is tape.Tensor
    assert type(-v) is tape.Tensor


def test_variable_names_and_repr():
    assert tape.Variable(3.0, name="x0").name == "x0:0"
    v = tape.Variable(3.0, name="x0")
    assert repr(v) == "tape.Variable('x0:0', shape=(), dtype=float64, numpy=3.0)"
    assert str(v) == repr(v)
    assert v.trainable and not tape.Variable(1.0, trainable=False).trainable


# -- Jacobians ------------------------------------------------------------------------------------
def test_jacobian_shape_and_values():
    x = _c(np.array([[0.5, 1.0, 1.5], [2.0, 2.5, 3.0]]))
    with tape.GradientTape() as t:
        t.watch(x)
        y = tape.sin(x)[:, :2] * 2.0          # (2, 2)
    j = t.jacobian(y, x)
    assert j.shape == (2, 2, 2, 3)
    want = np.zeros((2, 2, 2, 3))
    for i in range(2):
        for k in range(2):
            want[i, k, i, k] = 2.0 * np.cos(x.numpy()[i, k])
    np.testing.assert_allclose(j.numpy(), want, rtol=1e-12)


def test_jacobian_is_one_sweep():
    x = _c(np.linspace(0.1, 1.0, 50))
    with tape.GradientTape() as t:
        t.watch(x)
        y = tape.tanh(x) * tape.reduce_sum(x)
    before = tape_module.sweep_count
    j = t.jacobian(y, x)
    assert tape_module.sweep_count - before == 1
    xs = x.numpy()
    want = np.diag((1 - np.tanh(xs) ** 2) * xs.sum()) + np.tanh(xs)[:, None]
    np.testing.assert_allclose(j.numpy(), want, rtol=1e-12)


def test_jacobian_nested_sources():
    a, b = _c([1.0, 2.0]), _c(3.0)
    with tape.GradientTape() as t:
        t.watch([a, b])
        y = a * b
    ja, jb = t.jacobian(y, [a, b])
    np.testing.assert_allclose(ja.numpy(), np.eye(2) * 3.0)
    assert jb.shape == (2,)
    np.testing.assert_allclose(jb.numpy(), [1.0, 2.0])


def test_batch_jacobian_shape():
    x = _c(np.arange(1.0, 7.0).reshape(2, 3))
    with tape.GradientTape() as t:
        t.watch(x)
        y = tape.stack([x[:, 0] * x[:, 1], x[:, 2] ** 2], axis=1)   # (2, 2)
    bj = t.batch_jacobian(y, x)
    assert bj.shape == (2, 2, 3)
    xs = x.numpy()
    for i in range(2):
        np.testing.assert_allclose(bj.numpy()[i], [[xs[i, 1], xs[i, 0], 0], [0, 0, 2 * xs[i, 2]]])


def test_hessian_by_nested_jacobian():
    x = _c([0.5, -1.0])
    with tape.GradientTape() as outer:
        outer.watch(x)
        with tape.GradientTape() as inner:
            inner.watch(x)
            y = x[0] ** 2 * x[1] + tape.sin(x[1])
        g = inner.gradient(y, x)
    h = outer.jacobian(g, x)
    a, b = 0.5, -1.0
    np.testing.assert_allclose(h.numpy(), [[2 * b, 2 * a], [2 * a, -np.sin(b)]], rtol=1e-12)


# -- error messages name both shapes ------------------------------------------------------------------
def _mentions(msg, shape):
    forms = {str(tuple(shape)), str(list(shape)), "x".join(map(str, shape)),
             str(tuple(shape)).replace(" ", "")}
    return any(f in msg for f in forms)


@pytest.mark.parametrize("make, shapes", [
    (lambda: tape.add(tape.ones((2, 3)), tape.ones((4,))), [(2, 3), (4,)]),
    (lambda: tape.ones((2, 3)) * tape.ones((2, 2)), [(2, 3), (2, 2)]),
    (lambda: tape.matmul(tape.ones((2, 3)), tape.ones((4, 5))), [(2, 3), (4, 5)]),
    (lambda: tape.ones((2, 3)) @ tape.ones((4, 5)), [(2, 3), (4, 5)]),
    (lambda: tape.concat([tape.ones((2, 3)), tape.ones((2, 2))], axis=0), [(2, 3), (2, 2)]),
    (lambda: tape.linalg.solve(tape.eye(3), tape.ones((4, 1))), [(3, 3), (4, 1)]),
], ids=["add", "mul", "matmul", "@", "concat", "solve"])
def test_shape_mismatch_errors_name_both_shapes(make, shapes):
    with pytest.raises(ValueError) as exc:
        make()
    msg = str(exc.value)
    assert all(_mentions(msg, s) for s in shapes), msg


def test_reshape_error_names_shapes():
    with pytest.raises(ValueError) as exc:
        tape.reshape(tape.ones((2, 3)), (4, 2))
    assert "(2, 3)" in str(exc.value) or "6" in str(exc.value)
    assert "(4, 2)" in str(exc.value)


# -- the tape lets go; long chains ------------------------------------------------------------------
def test_non_persistent_tape_releases_intermediates():
    x = _c(np.ones(1000))
    with tape.GradientTape() as t:
        t.watch(x)
        y = tape.sin(x)
        z = tape.reduce_sum(y * y)
    ref = weakref.ref(y)
    del y
    t.gradient(z, x)
    gc.collect()
    assert ref() is None


def _gradient_of_list():
    x, v = tape.Variable(np.array([0.3, 0.7])), tape.Variable(1.5)
    with tape.GradientTape() as t:
        y = tape.reduce_sum(tape.sin(x) * tape.exp(x)) * v
    return t.gradient(y, [x, {"v": v}])


def _jacobian_of_gradient():
    x = tape.Variable(np.array([0.3, 0.7]))
    with tape.GradientTape() as outer:
        with tape.GradientTape() as inner:
            y = tape.reduce_sum(tape.sin(x) * x)
        g = inner.gradient(y, x)
    return outer.jacobian(g, x)


def _forward_mode():
    x = tape.constant(np.array([0.3, 0.7]))
    with tape.ForwardAccumulator(x, tape.ones_like(x)) as acc:
        y = tape.sin(x) * x
    return acc.jvp(y)


@pytest.mark.parametrize("compute", [
    _gradient_of_list, _jacobian_of_gradient, _forward_mode,
    lambda: tape.hessian(lambda z: tape.reduce_sum(tape.sin(z) ** 2))(tape.constant([0.1, 0.2])),
    lambda: tape.derivative(lambda z: tape.sin(z) * tape.exp(z), tape.constant(0.3), order=5),
], ids=["gradient", "jacobian", "forward", "hessian", "taylor"])
def test_derivatives_create_no_reference_cycles(compute):
    # Results and intermediates must be freed by reference counting as soon as they are dropped:
    # a cycle would keep large gradients alive until the next garbage collection (this once
    # held every W4 benchmark gradient, 3 MB each, and made each new one a fresh mmap).
    compute()
    gc.collect()
    gc.disable()
    try:
        result = compute()
        del result
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_long_chain_does_not_recurse():
    x = _c(1.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = x
        for _ in range(20000):
            y = y * 1.0001
    np.testing.assert_allclose(t.gradient(y, x).numpy(), 1.0001 ** 20000, rtol=1e-9)


def test_ops_outside_any_tape_are_not_recorded():
    x = _c(2.0)
    y = x * x
    with tape.GradientTape() as t:
        t.watch(x)
        z = y * x
    np.testing.assert_allclose(t.gradient(z, x).numpy(), 4.0)


# -- Tensor protocol bits used by the tutorials --------------------------------------------------
def test_tensor_python_protocols():
    t = _c([[1.0, 2.0], [3.0, 4.0]])
    assert len(t) == 2
    assert [r.numpy().tolist() for r in t] == [[1.0, 2.0], [3.0, 4.0]]
    assert float(t[1, 1]) == 4.0 and int(_c(3)) == 3 and bool(_c(True))
    assert np.asarray(t).shape == (2, 2)
    assert t.ndim == 2 and t.shape == (2, 2)
    # multi-line values start on their own line, as TensorFlow prints them
    assert repr(t) == "tape.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float64)"
    assert str(t.shape) == "(2, 2)"
    with pytest.raises((TypeError, ValueError)):
        float(t)


def test_dtype_promotion_rules():
    x32 = _c([1.0], dtype=tape.float32)
    x64 = _c([1.0])
    assert (x32 * 2.0).dtype == tape.float32
    assert (2 * x32).dtype == tape.float32
    assert (x32 + x64).dtype == tape.float64
    assert (_c([1, 2]) * 2).dtype == tape.int64
    assert (_c([1, 2]) * 2.5).dtype == tape.float64
    assert _c(1.0).dtype == tape.float64 and _c(1).dtype == tape.int64
