"""The interpreter's environment (gblint.abstract.env.Env): parameter bindings and named fields, no hidden
keys. What is memoized on an environment (gblint.abstract.values.env_key) tells apart every field but the
interpreter it is followed with."""
from gblint.abstract import values
from gblint.abstract.env import Env
from gblint.core.model import CallArgs, Param
from gblint.abstract.objects import Ctx, Here

C = values.const


def _full() -> Env:
    here = Here("m.py", "f")
    return Env({"x": C(1)}, resolver=object(), frame=here, outer=Ctx("m.py", "g", ()), mode=C(False), read=True,
               via="f is g", before_self="self", before={"step": C(2)}, locals={"i": C(3)})


def test_the_key_tells_apart_every_field_but_the_resolver():
    env = _full()
    key = values.env_key(env)
    assert values.env_key(env.replace(resolver=object())) == key
    changes = dict(bindings={"x": C(2)}, frame=Here("m.py", "h"), outer=None, mode=C(True), read=False, via=None,
                   before_self="other", before={}, locals={"i": C(4)})
    for name, value in changes.items():
        assert values.env_key(env.replace(**{name: value})) != key, name
    hash(key)


def test_a_key_gives_back_its_env():
    env = _full()
    back = Env.from_key(values.env_key(env), resolver=env.resolver)
    assert back == env and back is not env
    assert Env.from_key(values.env_key(env), resolver=None) != env  # the resolver is part of equality


def test_replace_copies():
    env = _full()
    copy = env.replace()
    copy.bindings["y"] = C(5)
    copy.locals["j"] = C(6)
    copy.before["other"] = C(7)
    assert "y" not in env.bindings and "j" not in env.locals and "other" not in env.before


def test_merge_keeps_what_all_agree_on():
    here = Here("m.py", "f")
    a = Env({"x": C(1), "y": C(2)}, frame=here, read=True, locals={"i": C(1)})
    b = Env({"x": C(1), "y": C(3)}, frame=here, locals={"i": C(1)})
    merged = values.merge([a, b])
    assert merged.bindings == {"x": C(1)}
    assert merged.frame == here and merged.read is False and merged.locals == {"i": C(1)}
    assert values.merge([]) == Env()


def test_an_env_hides_nothing_among_its_bindings():
    """An Env is no mapping: what is not a parameter's value is a named field, and the bindings
    that binding a call makes are the callee's parameter names."""
    assert not any(hasattr(Env, name) for name in ("get", "__getitem__", "__contains__", "items", "keys"))
    params = (Param("self"), Param("a"), Param("rest", "star"), Param("kw", "starstar"))
    env = values.bind(CallArgs((C(1), C(2)), (("z", C(0)),)), params, Env(resolver=object()), bound=True)
    assert set(env.bindings) == {"a", "rest", "kw"} and env.resolver is not None
