"""Fixed kernel code compiled once for every spec, called by a spec's kernel through its address.

Why: numba compiles a function's callees into it. The playout driver of every spec's kernel
(:mod:`interpreter.fast.typepass`) seeds its random generators a batch at a time with
:func:`~interpreter.fast.runtime.prepare_batch` (SHA-512 of texts, Mersenne Twister seeding side by
side): compiled into each spec's driver, that fixed code cost about 1.8 s of CPU per spec
(``tools/kernel_compile.py``). Here it is compiled once, as a C function (``cfunc``, cached by numba
beside this file), and the driver calls it through its address, which the caller passes at run
time (an address is never compiled into a cached kernel: it changes from process to process).

:func:`prepare_batch_at` is the driver's call (a numba intrinsic: each array passed as its data
pointer and its shape, the layout the C function rebuilds its arrays from);
:func:`prepare_batch_address` gives the address. The arrays must be C-contiguous (the driver's are).
"""
from __future__ import annotations

from llvmlite import ir
from numba import carray, cfunc, types
from numba.core import cgutils
from numba.extending import intrinsic

from .runtime import prepare_batch

_I, _P64, _P32, _P8, _PU64 = (types.int64, types.CPointer(types.int64), types.CPointer(types.uint32),
                              types.CPointer(types.uint8), types.CPointer(types.uint64))
# RG, first_seed, nb, NP, E, KEYS, KL, G, KT, ROWOF, GROUPS, ORDER, TXT, TXL, SH: each array as its
# data pointer then its sizes
_SIGNATURE = types.void(_P64, _I, _I, _I, _I, _I, _I, _P64, _I, _I, _P64, _I, _P32, _I, _I, _P32, _I, _I, _P64, _I,
                        _P64, _I, _I, _P64, _I, _P8, _I, _I, _P64, _I, _I, _PU64, _I, _I)


@cfunc(_SIGNATURE, cache=True)
def _prepare_batch_c(rg, rg0, rg1, first_seed, nb, NP, E, keys, keys0, keys1, kl, kl0, g, g0, g1, kt, kt0, kt1,
                     rowof, rowof0, groups, groups0, groups1, order, order0, txt, txt0, txt1, txl, txl0, txl1,
                     sh, sh0, sh1):
    prepare_batch(carray(rg, (rg0, rg1)), first_seed, nb, NP, E, carray(keys, (keys0, keys1)), carray(kl, kl0),
                  carray(g, (g0, g1)), carray(kt, (kt0, kt1)), carray(rowof, rowof0),
                  carray(groups, (groups0, groups1)), carray(order, order0), carray(txt, (txt0, txt1)),
                  carray(txl, (txl0, txl1)), carray(sh, (sh0, sh1)))


def prepare_batch_address() -> int:
    """The address of the compiled :func:`~interpreter.fast.runtime.prepare_batch` (this process's)."""
    return _prepare_batch_c.address


@intrinsic
def prepare_batch_at(typingctx, addr, RG, first_seed, nb, NP, E, KEYS, KL, G, KT, ROWOF, GROUPS, ORDER, TXT, TXL,
                     SH):
    """``prepare_batch(RG, first_seed, ...)`` (see :func:`~interpreter.fast.runtime.prepare_batch`)
    run by the compiled C function at ``addr`` (:func:`prepare_batch_address`): no code of it is
    compiled into the caller."""
    args = (RG, first_seed, nb, NP, E, KEYS, KL, G, KT, ROWOF, GROUPS, ORDER, TXT, TXL, SH)
    if not isinstance(addr, types.Integer):
        return None

    def codegen(context, builder, signature, llargs):
        values = []
        for ty, v in zip(signature.args[1:], llargs[1:]):
            if isinstance(ty, types.Array):
                array = context.make_array(ty)(context, builder, v)
                values.append(array.data)
                values += cgutils.unpack_tuple(builder, array.shape, ty.ndim)
            else:
                values.append(context.cast(builder, v, ty, types.int64))
        fnty = ir.FunctionType(ir.VoidType(), [v.type for v in values])
        builder.call(builder.inttoptr(context.cast(builder, llargs[0], signature.args[0], types.int64),
                                      fnty.as_pointer()), values)
        return context.get_dummy_value()
    return types.void(addr, *args), codegen
