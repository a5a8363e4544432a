"""tape.Module and tape.layers.Dense."""
import numpy as np
import pytest

import tape
from tape.engine.module import clear_session


def _var(value, name, trainable=True):
    return tape.Variable(value, name=name, trainable=trainable)


# -- Module -------------------------------------------------------------------------------------
class Leaf(tape.Module):
    def __init__(self, tag, name=None):
        super().__init__(name=name)
        self.w = _var(1.0, f"{tag}_w")
        self.frozen = _var(2.0, f"{tag}_frozen", trainable=False)


class Tree(tape.Module):
    def __init__(self):
        super().__init__()
        self.a = _var(0.0, "a")
        self.items = [_var(1.0, "l0"), (_var(2.0, "t0"), [_var(3.0, "deep")])]
        self.table = {"z": _var(4.0, "dz"), "b": _var(5.0, "db")}
        self.child = Leaf("c")
        self.children = [Leaf("k0"), {"x": Leaf("k1")}]
        self.constant = tape.constant(7.0)     # a Tensor, not a Variable: not collected
        self.number = 3.0


def test_module_collects_variables_recursively_in_a_deterministic_order():
    names = [v.name for v in Tree().variables]
    assert names == ["a:0", "l0:0", "t0:0", "deep:0", "dz:0", "db:0",
                     "c_w:0", "c_frozen:0", "k0_w:0", "k0_frozen:0", "k1_w:0", "k1_frozen:0"]
    assert names == [v.name for v in Tree().variables]     # deterministic


def test_module_trainable_variables():
    t = Tree()
    assert [v.name for v in t.trainable_variables] == \
        ["a:0", "l0:0", "t0:0", "deep:0", "dz:0", "db:0", "c_w:0", "k0_w:0", "k1_w:0"]
    assert all(v.trainable for v in t.trainable_variables)
    assert {v.name for v in t.non_trainable_variables} == {"c_frozen:0", "k0_frozen:0", "k1_frozen:0"}


def test_module_no_duplicates_and_cycles():
    m = tape.Module()
    v = _var(1.0, "shared")
    m.first = v
    m.again = [v, {"k": v}]
    sub = tape.Module(name="sub")
    sub.v = v
    sub.parent = m             # a cycle
    m.sub = sub
    m.sub_again = [sub]
    assert [x.name for x in m.variables] == ["shared:0"]
    assert m.submodules == (sub,)
    assert len(sub.variables) == 1   # through the cycle back to m: still one


def test_module_submodules_and_names():
    t = Tree()
    subs = t.submodules
    assert len(subs) == 3
    assert subs[0] is t.child
    assert subs[1] is t.children[0] and subs[2] is t.children[1]["x"]
    assert t.name == "tree"
    assert Leaf("q", name="custom").name == "custom"
    assert tape.Module().name == "module"

    class MyFancyModel(tape.Module):
        pass
    assert MyFancyModel().name == "my_fancy_model"


def test_module_variables_are_tuples_and_usable_as_sources():
    t = Tree()
    with tape.GradientTape() as g:
        y = t.a * t.child.w + t.items[0] ** 2
    grads = g.gradient(y, t.trainable_variables)
    assert len(grads) == len(t.trainable_variables)
    np.testing.assert_allclose(grads[0], 1.0)   # dy/da = w = 1
    np.testing.assert_allclose(grads[1], 2.0)   # dy/dl0 = 2 l0
    assert grads[2] is None
    np.testing.assert_allclose(grads[6], 0.0)   # dy/dw = a = 0


def test_module_deep_nesting_does_not_recurse():
    m = tape.Module()
    nested = _var(1.0, "bottom")
    for _ in range(5000):
        nested = [nested]
    m.deep = nested
    assert [v.name for v in m.variables] == ["bottom:0"]
    chain = tape.Module(name="root")
    cur = chain
    for i in range(3000):
        nxt = tape.Module(name=f"m{i}")
        cur.next = nxt
        cur = nxt
    cur.v = _var(1.0, "end")
    assert [v.name for v in chain.variables] == ["end:0"]
    assert len(chain.submodules) == 3000


# -- Dense --------------------------------------------------------------------------------------
def test_dense_builds_on_first_call_and_names_variables():
    layer = tape.layers.Dense(4)
    assert layer.variables == () or list(layer.variables) == []
    assert not layer.built
    y = layer(tape.constant(np.ones((5, 3))))
    assert layer.built
    assert y.shape == (5, 4)
    assert [v.name for v in layer.variables] == ["dense/kernel:0", "dense/bias:0"]
    assert layer.kernel.shape == (3, 4) and layer.bias.shape == (4,)
    assert layer.kernel.dtype == tape.float64
    np.testing.assert_array_equal(layer.bias.numpy(), np.zeros(4))
    second = tape.layers.Dense(2)
    second(y)
    assert [v.name for v in second.variables] == ["dense_1/kernel:0", "dense_1/bias:0"]
    third = tape.layers.Dense(2, name="head")
    third(y)
    assert [v.name for v in third.variables] == ["head/kernel:0", "head/bias:0"]


def test_dense_names_restart_after_clear_session():
    tape.layers.Dense(1)(tape.constant([[1.0]]))
    clear_session()
    layer = tape.layers.Dense(1)
    layer(tape.constant([[1.0]]))
    assert layer.kernel.name == "dense/kernel:0"


def test_dense_glorot_uniform_kernel():
    tape.random.set_seed(1)
    layer = tape.layers.Dense(300)
    layer(tape.constant(np.ones((1, 200))))
    k = layer.kernel.numpy()
    limit = np.sqrt(6.0 / (200 + 300))
    assert np.all(np.abs(k) <= limit)
    assert k.max() > 0.9 * limit and k.min() < -0.9 * limit      # spread over the whole range
    assert abs(k.mean()) < 0.05 * limit
    assert np.std(k) == pytest.approx(limit / np.sqrt(3), rel=0.05)   # uniform's std


def test_dense_is_reproducible_with_seed():
    tape.random.set_seed(7)
    a = tape.layers.Dense(3)
    a(tape.constant([[1.0, 2.0]]))
    tape.random.set_seed(7)
    b = tape.layers.Dense(3)
    b(tape.constant([[1.0, 2.0]]))
    np.testing.assert_array_equal(a.kernel.numpy(), b.kernel.numpy())


@pytest.mark.parametrize("activation, fn", [
    (None, lambda z: z),
    ("relu", lambda z: np.maximum(z, 0)),
    ("tanh", np.tanh),
    ("sigmoid", lambda z: 1 / (1 + np.exp(-z))),
    ("softmax", lambda z: np.exp(z) / np.exp(z).sum(-1, keepdims=True)),
    (lambda t: t * 2.0, lambda z: 2 * z),
])
def test_dense_forward_and_activations(activation, fn):
    tape.random.set_seed(3)
    layer = tape.layers.Dense(3, activation=activation)
    x = np.array([[0.5, -1.0], [2.0, 0.25]])
    y = layer(tape.constant(x))
    z = x @ layer.kernel.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(y.numpy(), fn(z), rtol=1e-12)


def test_dense_unknown_activation():
    with pytest.raises(ValueError, match="activation"):
        tape.layers.Dense(3, activation="swishy")


def test_dense_use_bias_false_and_initializers():
    layer = tape.layers.Dense(2, use_bias=False, kernel_initializer="ones")
    y = layer(tape.constant([[1.0, 2.0, 3.0]]))
    assert [v.name for v in layer.variables] == ["dense/kernel:0"]
    np.testing.assert_allclose(y.numpy(), [[6.0, 6.0]])
    custom = tape.layers.Dense(2, kernel_initializer=lambda shape, dtype: np.full(shape, 0.5))
    np.testing.assert_allclose(custom(tape.constant([[1.0, 1.0]])).numpy(), [[1.0, 1.0]])


def test_dense_gradients_match_closed_form():
    tape.random.set_seed(5)
    layer = tape.layers.Dense(2, activation="tanh")
    x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
    with tape.GradientTape() as g:
        y = layer(tape.constant(x))
        loss = tape.reduce_sum(y ** 2)
    dk, db = g.gradient(loss, layer.trainable_variables)
    z = x @ layer.kernel.numpy() + layer.bias.numpy()
    dz = 2 * np.tanh(z) * (1 - np.tanh(z) ** 2)
    np.testing.assert_allclose(dk.numpy(), x.T @ dz, rtol=1e-10)
    np.testing.assert_allclose(db.numpy(), dz.sum(0), rtol=1e-10)


def test_dense_on_rank3_inputs():
    layer = tape.layers.Dense(4, kernel_initializer="ones")
    y = layer(tape.constant(np.ones((2, 5, 3))))
    assert y.shape == (2, 5, 4)
    np.testing.assert_allclose(y.numpy(), 3.0)


def test_dense_shape_mismatch_after_build():
    layer = tape.layers.Dense(2)
    layer(tape.constant([[1.0, 2.0, 3.0]]))
    with pytest.raises(ValueError) as exc:
        layer(tape.constant([[1.0, 2.0]]))
    assert "(1, 2)" in str(exc.value) and "(3, 2)" in str(exc.value)


def test_dense_bad_units():
    with pytest.raises(ValueError):
        tape.layers.Dense(0)
    with pytest.raises(ValueError):
        tape.layers.Dense(2.5)


def test_dense_float32_inputs_make_float32_variables():
    layer = tape.layers.Dense(2)
    y = layer(tape.constant([[1.0, 2.0]], dtype=tape.float32))
    assert layer.kernel.dtype == tape.float32 and y.dtype == tape.float32


def test_dense_non_trainable_layer():
    layer = tape.layers.Dense(2)
    layer(tape.constant([[1.0]]))
    layer.trainable = False
    assert layer.trainable_variables == () or list(layer.trainable_variables) == []
    assert len(layer.variables) == 2


def test_module_of_layers_collects_their_variables():
    class MLP(tape.Module):
        def __init__(self):
            super().__init__()
            self.layers = [tape.layers.Dense(4, activation="relu"), tape.layers.Dense(1)]

        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    model = MLP()
    model(tape.constant([[1.0, 2.0]]))
    assert [v.name for v in model.trainable_variables] == \
        ["dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0"]
    assert len(model.submodules) == 2
    with tape.GradientTape() as g:
        out = tape.reduce_sum(model(tape.constant([[1.0, 2.0]])))
    grads = g.gradient(out, model.trainable_variables)
    assert [gr.shape for gr in grads] == [(2, 4), (4,), (4, 1), (1,)]
