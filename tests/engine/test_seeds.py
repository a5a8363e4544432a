"""Every TensorFlow example of the four tutorials in ../shared/seeds/, ported with `import tape as tf`.

One test per example, named ``test_<seed>_<example>``:

* ``s000`` -- 000_306f44b12b040e96.txt (Japanese, Qiita: "自動微分と勾配テープ")
* ``s001`` -- 001_ea60ba9b2ca78043.txt (Russian, TensorFlow guide "Автоматическое дифференцирование")
* ``s002`` -- 002_a986b5f5bf313c22.txt (Japanese, "TensorFlowやPyTorchで自動微分して勾配を取得する方法")
* ``s003`` -- 003_a1beaff5fd84d172.txt (Korean, tf.GradientTape API reference)

The tutorial code is kept as written (only the import changes); the assertions check the numbers
the tutorials print. TensorFlow computes in float32 and we in float64, so numbers agree to
rtol=1e-6 and printed reprs say float64 (int64 for Python ints), as SPEC section 2 fixes.
Where SPEC deliberately differs from TensorFlow, the test asserts SPEC and says so.
"""
import warnings

import numpy as np
import pytest

import tape as tf

RTOL = 1e-6


def close(got, want, rtol=RTOL, atol=0.0):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, dtype=float), rtol=rtol, atol=atol)


def printed(capsys):
    return capsys.readouterr().out.strip().splitlines()


# ==============================================================================================
# 000: Japanese (Qiita)
# ==============================================================================================
def test_s000_first_derivative():
    x = tf.constant(8.0)  # 8.0, shape=()
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    dy_dx = t.gradient(y, x)  # 16.0, shape=()
    close(dy_dx, 16.0)
    assert dy_dx.shape == ()
    assert repr(dy_dx) == "tape.Tensor(16.0, shape=(), dtype=float64)"


def test_s000_second_derivative(capsys):
    x = tf.constant(3.0)  # 3.0, shape=()
    print(x)
    with tf.GradientTape() as t:
        t.watch(x)
        with tf.GradientTape() as tt:
            tt.watch(x)
            y = x * x
        dy_dx = tt.gradient(y, x)  # 6.0, shape=()
    dy2_dx2 = t.gradient(dy_dx, x)  # 2.0, shape=()
    assert printed(capsys) == ["tape.Tensor(3.0, shape=(), dtype=float64)"]
    close(dy_dx, 6.0)
    close(dy2_dx2, 2.0)
    assert dy_dx.shape == () and dy2_dx2.shape == ()


def test_s000_identity_gives_one():
    x = tf.constant(8.0)  # 8.0, shape=()
    with tf.GradientTape() as t:
        t.watch(x)
        y = x
    dy_dx = t.gradient(y, x)  # 1.0, shape=()
    close(dy_dx, 1.0)
    assert dy_dx.shape == ()


def test_s000_control_flow():
    def f(x, y):
        output = 1.0
        for i in range(y):
            if i > 1 and i < 5:
                output = tf.multiply(output, x)
        return output

    def grad(x, y):
        with tf.GradientTape() as t:
            t.watch(x)
            out = f(x, y)
        return t.gradient(out, x)

    x = tf.convert_to_tensor(2.0)
    assert grad(x, 6).numpy() == pytest.approx(12.0, rel=RTOL)  # 12.0 (= 3 x**2 at x = 2)
    # and for another loop length: y=4 -> x**2 -> 2x = 4
    assert grad(x, 4).numpy() == pytest.approx(4.0, rel=RTOL)


def test_s000_reduce_sum_multiply():
    x = tf.ones((2, 2))  # x = [[1. 1.] [1. 1.]]
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(x)  # 4.0, shape=()
        z = tf.multiply(y, y)  # 16.0, shape=()
    dz_dx = t.gradient(z, x)  # [[8. 8.] [8. 8.]], shape=(2, 2)
    close(y, 4.0)
    close(z, 16.0)
    assert y.shape == () and z.shape == ()
    close(dz_dx, [[8.0, 8.0], [8.0, 8.0]])
    assert dz_dx.shape == (2, 2)
    assert x.dtype == tf.float64  # SPEC: creation ops default to float64 (TF: float32)


def test_s000_while_loop(capsys):
    i = tf.constant(0)
    c = lambda i: tf.less(i, 10)
    # b = lambda i: (tf.add(i, 1), )

    def b(i):
        print(i)
        return (tf.add(i, 1), )

    r = tf.while_loop(c, b, [i])
    # TF prints tf.Tensor(0, shape=(), dtype=int32) ... ; Python ints are int64 here (SPEC)
    assert printed(capsys) == [f"tape.Tensor({k}, shape=(), dtype=int64)" for k in range(10)]
    # Out: (<tf.Tensor: shape=(), dtype=int32, numpy=10>,) -- the structure the body returns
    assert isinstance(r, tuple) and len(r) == 1
    assert int(r[0]) == 10
    assert r[0].dtype == tf.int64 and r[0].shape == ()


def test_s000_gather_nd_1d():
    x = tf.constant([0.1, 0.1, 1.5, 4.5, 3.6, 1.2])
    y = tf.constant([3.1, 2.3, 1.4, 2.3, 4.4, 3.1])
    uniqueIndices = tf.constant([0, 1, 2, 3, 4, 5])
    x = tf.gather_nd(x, uniqueIndices[:, None])
    y = tf.gather_nd(y, uniqueIndices[:, None])
    r = tf.multiply(x, y)  # shape=(6,), array([0.31, 0.23, 2.1, 10.349999, 15.84, 3.72])
    assert r.shape == (6,)
    # 10.349999 is float32 rounding of 10.35
    close(r, [0.31, 0.23, 2.1, 10.35, 15.84, 3.72])


def test_s000_gather_nd_2d():
    x = [[1, 2, 3], [4, 5, 6]]
    y = tf.gather_nd(x, [[1, 1], [1, 2]])  # shape=(2,) numpy=array([5, 6], dtype=int32)
    assert y.shape == (2,)
    assert y.numpy().tolist() == [5, 6]
    assert y.dtype == tf.int64  # SPEC: Python ints are int64 (TF: int32)


def test_s000_cond():
    x = tf.constant(2)
    y = tf.constant(5)
    calls = []

    def f1():
        calls.append("f1")
        return tf.multiply(x, 17)

    def f2():
        calls.append("f2")
        return tf.add(y, 23)

    r = tf.cond(tf.less(x, y), f1, f2)
    # r holds f1()'s value; f2's operations (tf.add) are not executed. (x = 2, r = 34)
    assert int(r) == 34
    assert calls == ["f1"]


def test_s000_function(capsys):
    @tf.function
    def mini_func(x):
        return x * x

    x = tf.constant(5.0)
    with tf.GradientTape() as t:
        t.watch(x)
        result = mini_func(x)
    dy_dx = t.gradient(result, x)
    print(dy_dx)  # tf.Tensor(10.0, shape=(), dtype=float32)
    assert printed(capsys) == ["tape.Tensor(10.0, shape=(), dtype=float64)"]
    close(result, 25.0)


def test_s000_function_with_constant(capsys):
    # "constantの場合": the same code as above, repeated in the tutorial
    @tf.function
    def mini_func(x):
        return x * x

    x = tf.constant(5.0)
    with tf.GradientTape() as t:
        t.watch(x)
        result = mini_func(x)
    dy_dx = t.gradient(result, x)
    print(dy_dx)  # tf.Tensor(10.0, shape=(), dtype=float32)
    assert printed(capsys) == ["tape.Tensor(10.0, shape=(), dtype=float64)"]
    # calling it again (a traced / cached function) gives the same numbers at another point
    x = tf.constant(-1.5)
    with tf.GradientTape() as t:
        t.watch(x)
        result = mini_func(x)
    close(t.gradient(result, x), -3.0)


def test_s000_function_with_variable(capsys):
    @tf.function
    def mini_func(x):
        return x * x

    x = tf.Variable(5.0)
    with tf.GradientTape() as t:
        result = mini_func(x)
    dy_dx = t.gradient(result, x)
    print(dy_dx)  # tf.Tensor(10.0, shape=(), dtype=float32)
    assert printed(capsys) == ["tape.Tensor(10.0, shape=(), dtype=float64)"]


def test_s000_clip_by_value():
    t = tf.constant([[-10., -1., 0.], [0., 2., 10.]])
    t2 = tf.clip_by_value(t, clip_value_min=-1, clip_value_max=1)
    out = t2.numpy()
    # array([[-1., -1., 0.], [ 0., 1., 1.]], dtype=float32)
    np.testing.assert_array_equal(out, [[-1., -1., 0.], [0., 1., 1.]])
    assert out.dtype == np.float64  # Python ints take the tensor's dtype (SPEC)


def test_s000_zeros():
    z = tf.zeros([2, 3])
    # <tf.Tensor: shape=(2, 3), dtype=float32, numpy=array([[0., 0., 0.], [0., 0., 0.]])>
    assert z.shape == (2, 3)
    assert z.dtype == tf.float64  # SPEC: creation ops default to float64
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3)))


def test_s000_ones():
    o = tf.ones((2, 3))
    assert o.shape == (2, 3)
    assert o.dtype == tf.float64
    np.testing.assert_array_equal(o.numpy(), np.ones((2, 3)))


def test_s000_fill():
    f = tf.fill([2, 3], 9)
    # <tf.Tensor: shape=(2, 3), dtype=int32, numpy=array([[9, 9, 9], [9, 9, 9]], dtype=int32)>
    assert f.shape == (2, 3)
    assert f.dtype == tf.int64  # a Python int fills an int64 tensor here (TF: int32)
    assert f.numpy().tolist() == [[9, 9, 9], [9, 9, 9]]
    # SPEC: fill with a float is float64
    assert tf.fill([2, 3], 9.0).dtype == tf.float64


def test_s000_cast(capsys):
    labels = tf.constant([0, 3, 1])
    print(labels)
    c = tf.cast(labels, tf.float32)
    # tf.Tensor([0 3 1], shape=(3,), dtype=int32)  -- int64 here (SPEC)
    assert printed(capsys) == ["tape.Tensor([0 3 1], shape=(3,), dtype=int64)"]
    # <tf.Tensor: shape=(3,), dtype=float32, numpy=array([0., 3., 1.], dtype=float32)>
    assert c.dtype == tf.float32
    assert c.numpy().dtype == np.float32
    np.testing.assert_array_equal(c.numpy(), [0.0, 3.0, 1.0])
    assert repr(c) == "tape.Tensor([0. 3. 1.], shape=(3,), dtype=float32)"


def test_s000_numpy(capsys):
    labels = tf.constant([0, 3, 1])
    print(labels)
    arr = labels.numpy()
    assert printed(capsys) == ["tape.Tensor([0 3 1], shape=(3,), dtype=int64)"]
    # array([0, 3, 1], dtype=int32) -- int64 here
    assert isinstance(arr, np.ndarray)
    assert arr.dtype == np.int64
    assert arr.tolist() == [0, 3, 1]


# ==============================================================================================
# 001: Russian (TensorFlow guide "Introduction to gradients and automatic differentiation")
# ==============================================================================================
def test_s001_gradient_tapes():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x**2
    # dy = 2x * dx
    dy_dx = tape.gradient(y, x)
    assert dy_dx.numpy() == pytest.approx(6.0, rel=RTOL)


def _s001_w_b_loss():
    tf.random.set_seed(0)
    w = tf.Variable(tf.random.normal((3, 2)), name='w')
    b = tf.Variable(tf.zeros(2, dtype=tf.float32), name='b')
    x = [[1., 2., 3.]]
    with tf.GradientTape(persistent=True) as tape:
        y = x @ w + b
        loss = tf.reduce_mean(y**2)
    return w, b, x, y, loss, tape


def _s001_expected(w, b, x):
    # loss = mean(y**2) over 2 outputs -> dloss/dy = y ; y = x @ w + b
    x = np.asarray(x)
    y = x @ np.asarray(w, dtype=float) + np.asarray(b, dtype=float)
    return x.T @ y, y[0]


def test_s001_tensors_of_any_shape(capsys):
    w, b, x, y, loss, tape = _s001_w_b_loss()
    [dl_dw, dl_db] = tape.gradient(loss, [w, b])
    print(w.shape)
    print(dl_dw.shape)
    # (3, 2) (3, 2)  -- TensorShape prints as a tuple, as in TF
    assert printed(capsys) == ["(3, 2)", "(3, 2)"]
    want_w, want_b = _s001_expected(w, b, x)
    close(dl_dw, want_w)
    close(dl_db, want_b, rtol=1e-5)    # b is float32: its gradient is float32
    assert dl_db.shape == (2,) and dl_db.dtype == tf.float32
    assert dl_dw.dtype == tf.float64
    # w (float64, SPEC) @ ... + b (float32): promotes as NumPy does
    assert y.dtype == tf.float64
    del tape


def test_s001_dict_of_sources():
    w, b, x, y, loss, tape = _s001_w_b_loss()
    my_vars = {
        'w': w,
        'b': b
    }
    grad = tape.gradient(loss, my_vars)
    # <tf.Tensor: shape=(2,), dtype=float32, numpy=array([-1.6920902, -3.2363236])> (random w)
    assert isinstance(grad, dict) and set(grad) == {'w', 'b'}
    want_w, want_b = _s001_expected(w, b, x)
    close(grad['b'], want_b, rtol=1e-5)
    close(grad['w'], want_w)
    assert grad['b'].shape == (2,)


def test_s001_gradients_of_a_model(capsys):
    layer = tf.keras.layers.Dense(2, activation='relu')
    x = tf.constant([[1., 2., 3.]])

    with tf.GradientTape() as tape:
        # Forward pass
        y = layer(x)
        loss = tf.reduce_mean(y**2)

    # Calculate gradients with respect to every trainable variable
    grad = tape.gradient(loss, layer.trainable_variables)
    for var, g in zip(layer.trainable_variables, grad):
        print(f'{var.name}, shape: {g.shape}')
    assert printed(capsys) == ["dense/kernel:0, shape: (3, 2)", "dense/bias:0, shape: (2,)"]

    # closed form: y = relu(x K + b); loss = mean(y**2) -> dloss/dpre = y * (pre > 0)
    K, bias = layer.kernel.numpy(), layer.bias.numpy()
    pre = x.numpy() @ K + bias
    dpre = np.maximum(pre, 0) * (pre > 0)
    close(grad[0], x.numpy().T @ dpre, atol=1e-12)
    close(grad[1], dpre[0], atol=1e-12)


def test_s001_controlling_what_the_tape_watches(capsys):
    # A trainable variable
    x0 = tf.Variable(3.0, name='x0')
    # Not trainable
    x1 = tf.Variable(3.0, name='x1', trainable=False)
    # Not a Variable: A variable + tensor returns a tensor.
    x2 = tf.Variable(2.0, name='x2') + 1.0
    # Not a variable
    x3 = tf.constant(3.0, name='x3')

    with tf.GradientTape() as tape:
        y = (x0**2) + (x1**2) + (x2**2)

    grad = tape.gradient(y, [x0, x1, x2, x3])

    for g in grad:
        print(g)
    # tf.Tensor(6.0, shape=(), dtype=float32) None None None
    assert printed(capsys) == ["tape.Tensor(6.0, shape=(), dtype=float64)", "None", "None", "None"]
    assert type(x2) is tf.Tensor and not isinstance(x2, tf.Variable)

    # ['x0:0']
    assert [var.name for var in tape.watched_variables()] == ['x0:0']


def test_s001_watch_a_tensor(capsys):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x**2

    # dy = 2x * dx
    dy_dx = tape.gradient(y, x)
    print(dy_dx.numpy())
    assert printed(capsys) == ["6.0"]


def test_s001_watch_accessed_variables_false(capsys):
    x0 = tf.Variable(0.0)
    x1 = tf.Variable(10.0)

    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x1)
        y0 = tf.math.sin(x0)
        y1 = tf.nn.softplus(x1)
        y = y0 + y1
        ys = tf.reduce_sum(y)

    # dys/dx1 = exp(x1) / (1 + exp(x1)) = sigmoid(x1)
    grad = tape.gradient(ys, {'x0': x0, 'x1': x1})

    print('dy/dx0:', grad['x0'])
    print('dy/dx1:', grad['x1'].numpy())
    out = printed(capsys)
    # dy/dx0: None dy/dx1: 0.9999546
    assert out[0] == "dy/dx0: None"
    assert out[1].startswith("dy/dx1: ")
    assert float(out[1].split()[1]) == pytest.approx(1 / (1 + np.exp(-10.0)), rel=RTOL)
    assert float(out[1].split()[1]) == pytest.approx(0.9999546, rel=RTOL)
    assert [v.name for v in tape.watched_variables()] == [x1.name]


def test_s001_intermediate_results(capsys):
    x = tf.constant(3.0)

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * y

    # Use the tape to compute the gradient of z with respect to the
    # intermediate value y.
    # dz_dy = 2 * y and y = x ** 2 = 9
    print(tape.gradient(z, y).numpy())
    assert printed(capsys) == ["18.0"]


def test_s001_persistent_tape(capsys):
    x = tf.constant([1, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y

    print(tape.gradient(z, x).numpy())  # [4.0, 108.0] (4 * x**3 at x = [1.0, 3.0])
    print(tape.gradient(y, x).numpy())  # [2.0, 6.0] (2 * x at x = [1.0, 3.0])
    # [  4. 108.] [2. 6.]
    assert printed(capsys) == ["[  4. 108.]", "[2. 6.]"]
    close(tape.gradient(z, x), [4.0, 108.0])
    del tape  # Drop the reference to the tape


def test_s001_gradients_of_several_targets(capsys):
    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y0 = x**2
        y1 = 1 / x

    print(tape.gradient(y0, x).numpy())
    print(tape.gradient(y1, x).numpy())
    # 4.0 -0.25
    assert printed(capsys) == ["4.0", "-0.25"]


def test_s001_dict_target_is_summed(capsys):
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y0 = x**2
        y1 = 1 / x

    print(tape.gradient({'y0': y0, 'y1': y1}, x).numpy())
    assert printed(capsys) == ["3.75"]


def test_s001_non_scalar_target_is_summed(capsys):
    x = tf.Variable(2.)
    with tf.GradientTape() as tape:
        y = x * [3., 4.]

    print(tape.gradient(y, x).numpy())
    assert printed(capsys) == ["7.0"]


def test_s001_elementwise_sigmoid_gradient():
    plt = pytest.importorskip("matplotlib.pyplot")
    x = tf.linspace(-10.0, 10.0, 200+1)

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.sigmoid(x)

    dy_dx = tape.gradient(y, x)

    assert x.shape == (201,) and dy_dx.shape == (201,)
    xs = np.linspace(-10.0, 10.0, 201)
    s = 1 / (1 + np.exp(-xs))
    close(x, xs)
    close(y, s)
    close(dy_dx, s * (1 - s))

    # the plotting code runs unchanged on tape tensors (non-interactive backend)
    plt.switch_backend("Agg")
    plt.plot(x, y, label='y')
    plt.plot(x, dy_dx, label='dy/dx')
    plt.legend()
    _ = plt.xlabel('x')
    plt.close("all")


def test_s001_control_flow(capsys):
    x = tf.constant(1.0)

    v0 = tf.Variable(2.0)
    v1 = tf.Variable(2.0)

    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        if x > 0.0:
            result = v0
        else:
            result = v1**2

    dv0, dv1 = tape.gradient(result, [v0, v1])

    print(dv0)
    print(dv1)
    # tf.Tensor(1.0, shape=(), dtype=float32) None
    assert printed(capsys) == ["tape.Tensor(1.0, shape=(), dtype=float64)", "None"]
    assert not isinstance(dv0, tf.Variable)

    dx = tape.gradient(result, x)
    print(dx)
    assert printed(capsys) == ["None"]


def test_s001_control_flow_other_branch():
    # the same code with x <= 0: only v1 is connected, d(v1**2)/dv1 = 2 v1 = 4
    x = tf.constant(-1.0)
    v0 = tf.Variable(2.0)
    v1 = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        if x > 0.0:
            result = v0
        else:
            result = v1**2
    dv0, dv1 = tape.gradient(result, [v0, v1])
    assert dv0 is None
    close(dv1, 4.0)
    assert tape.gradient(result, x) is None


def test_s001_unconnected_gives_none(capsys):
    x = tf.Variable(2.)
    y = tf.Variable(3.)

    with tf.GradientTape() as tape:
        z = y * y
    print(tape.gradient(z, x))
    assert printed(capsys) == ["None"]


def test_s001_replaced_variable_with_tensor(capsys):
    x = tf.Variable(2.0)

    for epoch in range(2):
        with tf.GradientTape() as tape:
            y = x+1

        print(type(x).__name__, ":", tape.gradient(y, x))
        x = x + 1   # This should be `x.assign_add(1)`
    # ResourceVariable : tf.Tensor(1.0, shape=(), dtype=float32) EagerTensor : None
    # (our class names are Variable and Tensor)
    assert printed(capsys) == ["Variable : tape.Tensor(1.0, shape=(), dtype=float64)",
                               "Tensor : None"]


def test_s001_calculation_outside_tensorflow(recwarn):
    x = tf.Variable([[1.0, 2.0],
                     [3.0, 4.0]], dtype=tf.float32)

    with tf.GradientTape() as tape:
        x2 = x**2

        # This step is calculated with NumPy
        y = np.mean(x2, axis=0)

        # Like most ops, reduce_mean will cast the NumPy array to a constant tensor
        # using `tf.convert_to_tensor`.
        y = tf.reduce_mean(y, axis=0)

    g = tape.gradient(y, x)
    # TensorFlow prints None here. SPEC differs on purpose: np.mean on tape tensors is recorded,
    # so y = mean(x**2) over all 4 elements and dy/dx = 2x/4 = x/2.
    assert g is not None
    close(g, [[0.5, 1.0], [1.5, 2.0]])
    assert g.dtype == tf.float32 and g.shape == (2, 2)
    assert not [w for w in recwarn.list if "not differentiated" in str(w.message)]


def test_s001_gradient_through_integer():
    x = tf.constant(10)

    with pytest.warns(UserWarning) as record:
        with tf.GradientTape() as g:
            g.watch(x)
            y = x * x
        result = g.gradient(y, x)
    print(result)
    # WARNING: The dtype of the watched / target / source tensor must be floating ... got int32
    # (Python warnings here, naming int64) ... None
    assert result is None
    messages = [str(w.message) for w in record]
    assert len(messages) >= 3, messages
    assert all("int64" in m for m in messages), messages
    assert any("watched" in m for m in messages)
    assert any("target" in m for m in messages)
    assert any("source" in m for m in messages)


def test_s001_gradient_through_stateful_object(capsys):
    x0 = tf.Variable(3.0)
    x1 = tf.Variable(0.0)

    with tf.GradientTape() as tape:
        # Update x1 = x1 + x0.
        x1.assign_add(x0)
        # The tape starts recording from x1.
        y = x1**2   # y = (x1 + x0)**2

    # This doesn't work.
    print(tape.gradient(y, x0))   #dy/dx0 = 2*(x1 + x0)
    assert printed(capsys) == ["None"]
    close(x1, 3.0)


def test_s001_no_gradient_registered(capsys):
    image = tf.Variable([[[0.5, 0.0, 0.0]]])
    delta = tf.Variable(0.1)

    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image, delta)

    try:
        print(tape.gradient(new_image, [image, delta]))
        assert False   # This should not happen.
    except LookupError as e:
        print(f'{type(e).__name__}: {e}')
    assert printed(capsys) == ["LookupError: gradient registry has no entry for: AdjustContrastv2"]
    # the forward value: (x - mean over the image) * delta + mean, per channel (1x1 image)
    close(new_image, [[[0.5, 0.0, 0.0]]])


def test_s001_no_gradient_registered_user_primitive(capsys):
    # the same situation with an op defined by the user through tape.primitive
    def _adjust_contrast(images, contrast_factor):
        mean = images.mean(axis=(-3, -2), keepdims=True)
        return (images - mean) * contrast_factor + mean
    adjust_contrast = tf.primitive(_adjust_contrast, name="TestsAdjustContrast")

    image = tf.Variable([[[0.5, 0.0, 0.0], [0.1, 0.2, 0.3]]])
    delta = tf.Variable(0.1)
    with tf.GradientTape() as tape:
        new_image = adjust_contrast(image, delta)
    with pytest.raises(LookupError) as exc:
        tape.gradient(new_image, [image, delta])
    assert str(exc.value).strip("'") == "gradient registry has no entry for: TestsAdjustContrast"


def test_s001_zeros_instead_of_none(capsys):
    x = tf.Variable([2., 2.])
    y = tf.Variable(3.)

    with tf.GradientTape() as tape:
        z = y**2
    print(tape.gradient(z, x, unconnected_gradients=tf.UnconnectedGradients.ZERO))
    # tf.Tensor([0. 0.], shape=(2,), dtype=float32)
    assert printed(capsys) == ["tape.Tensor([0. 0.], shape=(2,), dtype=float64)"]


# ==============================================================================================
# 002: Japanese blog (TensorFlow and PyTorch)
# ==============================================================================================
def calc(x):
    return (2 * x ** 3) + (4 * x ** 2) + (5 * x) + 6


def der_calc(x):
    return (6 * x ** 2) + (8 * x) + 5


def test_s002_scalar(capsys):
    x = tf.Variable(0.5)
    with tf.GradientTape() as tape:  # 計算式に対して「勾配計算が必要」とマーク
        y = calc(x)  # 既存の計算式から計算グラフを動的に構築
    print(y)       # tf.Tensor(9.75, shape=(), dtype=float32)

    g = tape.gradient(y, x)   # 逆伝播の処理として、上記式から微分係数(=勾配)を計算
    print(g)       # tf.Tensor(10.5, shape=(), dtype=float32)
    assert printed(capsys) == ["tape.Tensor(9.75, shape=(), dtype=float64)",
                               "tape.Tensor(10.5, shape=(), dtype=float64)"]
    assert der_calc(0.5) == 10.5


def test_s002_graph():
    plt = pytest.importorskip("matplotlib.pyplot")
    plt.switch_backend("Agg")

    x = tf.Variable(tf.range(-4.0, 4.0, 0.001), trainable=True)
    with tf.GradientTape() as tape:
        #tape.watch(x) # tf.constantなど「trainable=False」な状態であれば x を記録する(手動追跡)
        # ↑tf.Variableであれば既に訓練可能な状態(自動追跡)なので不要
        y = calc(x)
    g = tape.gradient(y, x)
    x_numpy = x.numpy()
    g_numpy = g.numpy()
    plt.plot(x_numpy, g_numpy, label = "Derivative")
    plt.xlim(-4, 4)
    plt.ylim(-2.0, 30.0)
    plt.grid()
    plt.legend()
    plt.close("all")

    xs = np.arange(-4.0, 4.0, 0.001)
    assert x_numpy.shape == (8000,) and g_numpy.shape == (8000,)
    close(x_numpy, xs)
    close(g_numpy, der_calc(xs))
    close(y, calc(xs))


# ==============================================================================================
# 003: Korean (tf.GradientTape API reference)
# ==============================================================================================
def test_s003_watch_constant():
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    dy_dx = g.gradient(y, x)  # Will compute to 6.0
    close(dy_dx, 6.0)


def test_s003_nested_tapes():
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        with tf.GradientTape() as gg:
            gg.watch(x)
            y = x * x
        dy_dx = gg.gradient(y, x)  # Will compute to 6.0
    d2y_dx2 = g.gradient(dy_dx, x)  # Will compute to 2.0
    close(dy_dx, 6.0)
    close(d2y_dx2, 2.0)


def test_s003_persistent():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
        z = y * y
    dz_dx = g.gradient(z, x)  # 108.0 (4*x^3 at x = 3)
    dy_dx = g.gradient(y, x)  # 6.0
    del g  # Drop the reference to the tape
    close(dz_dx, 108.0)
    close(dy_dx, 6.0)


def test_s003_watch_accessed_variables_false():
    variable_a = tf.Variable(2.0)
    variable_b = tf.Variable(3.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(variable_a)
        y = variable_a ** 2  # Gradients will be available for `variable_a`.
        z = variable_b ** 3  # No gradients will be available since `variable_b` is
                             # not being watched.
    ga, gb = tape.gradient([y, z], [variable_a, variable_b])
    close(ga, 4.0)
    assert gb is None
    assert list(tape.watched_variables()) == [variable_a]


def test_s003_unbuilt_layers_have_no_variables():
    inputs = tf.constant([[1.0, 2.0, 3.0]])
    a = tf.keras.layers.Dense(32)
    b = tf.keras.layers.Dense(32)
    assert a.variables == () or list(a.variables) == []
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(a.variables)  # Since `a.build` has not been called at this point
                                 # `a.variables` will return an empty list and the
                                 # tape will not be watching anything.
        result = b(a(inputs))
        grads = tape.gradient(result, a.variables)  # The result of this computation will be
                                                    # a list of `None`s since a's variables
                                                    # are not being watched.
    assert len(grads) == 2 and all(g is None for g in grads)
    assert result.shape == (1, 32)
    assert [v.name for v in a.variables] == ["dense/kernel:0", "dense/bias:0"]
    assert [v.name for v in b.variables] == ["dense_1/kernel:0", "dense_1/bias:0"]
    assert list(tape.watched_variables()) == []


def _s003_loss_fns():
    v = tf.Variable(2.0)
    w = tf.Variable(5.0)

    def loss_fn():
        return v * w          # d/dv = w = 5, d/dw = v = 2

    def other_loss_fn():
        return w ** 2         # d/dv = 0 (None), d/dw = 2w = 10
    return v, w, loss_fn, other_loss_fn


def test_s003_reset_equivalence():
    v, w, loss_fn, other_loss_fn = _s003_loss_fns()
    with tf.GradientTape() as t:
        loss = loss_fn()
    with tf.GradientTape() as t:
        loss += other_loss_fn()
    first = t.gradient(loss, [v, w])  # Only differentiates other_loss_fn, not loss_fn

    # The following is equivalent to the above
    with tf.GradientTape() as t:
        loss = loss_fn()
        t.reset()
        loss += other_loss_fn()
    second = t.gradient(loss, [v, w])  # Only differentiates other_loss_fn, not loss_fn

    for got in (first, second):
        assert got[0] is None
        close(got[1], 10.0)
    close(loss, 35.0)


def test_s003_reset_in_control_flow():
    v, w, loss_fn, other_loss_fn = _s003_loss_fns()
    k = 5.0
    with tf.GradientTape() as t:
        loss = loss_fn()        # 10.0
        if loss > k:
            t.reset()
        loss = loss + other_loss_fn()
    gv, gw = t.gradient(loss, [v, w])
    assert gv is None
    close(gw, 10.0)
    assert list(t.watched_variables()) == [w]


def test_s003_stop_recording():
    model = tf.keras.layers.Dense(3, kernel_initializer="ones")
    x = tf.constant([[1.0, 2.0]])

    def compute_loss(model):
        return tf.reduce_sum(model(x) ** 2)

    with tf.GradientTape(persistent=True) as t:
        loss = compute_loss(model)
        with t.stop_recording():
            # The gradient computation below is not traced, saving memory.
            grads = t.gradient(loss, model.variables)
    # y = x K + b = [3, 3, 3]; dloss/dy = 2y = 6; dK = x^T 6, db = 6
    close(grads[0], np.outer([1.0, 2.0], [6.0, 6.0, 6.0]))
    close(grads[1], [6.0, 6.0, 6.0])
    # nothing of the gradient computation was recorded: it has no gradient on this tape
    second = t.gradient(grads[1], model.variables)
    assert all(g is None for g in second)


def test_s003_batch_jacobian():
    with tf.GradientTape() as g:
        x = tf.constant([[1., 2.], [3., 4.]], dtype=tf.float32)
        g.watch(x)
        y = x * x
    batch_jacobian = g.batch_jacobian(y, x)
    # batch_jacobian is [[[2, 0], [0, 4]], [[6, 0], [0, 8]]]
    close(batch_jacobian, [[[2, 0], [0, 4]], [[6, 0], [0, 8]]])
    assert batch_jacobian.shape == (2, 2, 2)
    assert batch_jacobian.dtype == tf.float32


def test_s003_jacobian():
    with tf.GradientTape() as g:
        x = tf.constant([1.0, 2.0])
        g.watch(x)
        y = x * x
    jacobian = g.jacobian(y, x)
    # jacobian value is [[2., 0.], [0., 4.]]
    close(jacobian, [[2., 0.], [0., 4.]])
    assert jacobian.shape == (2, 2)


# -- the "Raises" sections of the reference, as SPEC decides them -----------------------------
def test_s003_gradient_raises_on_second_call():
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    g.gradient(y, x)
    with pytest.raises(RuntimeError):
        g.gradient(y, x)


def test_s003_gradient_inside_context_and_variable_target():
    # TF 1 raised RuntimeError inside the context and ValueError for a Variable target; SPEC:
    # calling gradient inside a non-persistent tape's context stops its recording, and a
    # Variable may be a target (gradient ones).
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as g:
        y = v * 3.0
        dv = g.gradient(v, v)
        z = y * y            # no longer recorded
    close(dv, [1.0, 1.0])
    assert type(dv) is tf.Tensor


def test_s003_unknown_unconnected_gradients_value():
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    with pytest.raises(ValueError):
        g.gradient(y, x, unconnected_gradients="nan")


def test_s003_watch_raises_on_non_tensor():
    with tf.GradientTape() as g:
        with pytest.raises(ValueError):
            g.watch("not a tensor")


def test_s003_stop_recording_raises_when_not_recording():
    g = tf.GradientTape()
    with pytest.raises(RuntimeError):
        with g.stop_recording():
            pass


def test_s003_jacobian_without_pfor_on_non_persistent_tape():
    with tf.GradientTape() as g:
        x = tf.constant([1.0, 2.0])
        g.watch(x)
        y = x * x
    with pytest.raises(RuntimeError):
        g.jacobian(y, x, experimental_use_pfor=False)
    with tf.GradientTape() as g:
        x = tf.constant([[1., 2.], [3., 4.]])
        g.watch(x)
        y = x * x
    with pytest.raises(RuntimeError):
        g.batch_jacobian(y, x, experimental_use_pfor=False)


def test_s003_jacobian_without_pfor_on_persistent_tape():
    with tf.GradientTape(persistent=True) as g:
        x = tf.constant([1.0, 2.0])
        g.watch(x)
        y = x * x
    close(g.jacobian(y, x, experimental_use_pfor=False), [[2., 0.], [0., 4.]])


def test_s003_batch_jacobian_batch_mismatch():
    with tf.GradientTape() as g:
        x = tf.constant([[1., 2.], [3., 4.]])
        g.watch(x)
        y = tf.reshape(x, (1, 4))
    with pytest.raises(ValueError):
        g.batch_jacobian(y, x)


def test_s003_aliases():
    # "Main aliases: tf.autodiff.GradientTape"
    assert tf.autodiff.GradientTape is tf.GradientTape
    x = tf.constant(3.0)
    with tf.autodiff.GradientTape() as g:
        g.watch(x)
        y = x * x
    close(g.gradient(y, x), 6.0)
