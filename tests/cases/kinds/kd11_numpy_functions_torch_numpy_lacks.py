"""NumPy functions of ``numpy.random``, ``numpy.fft`` and ``numpy.linalg`` that ``torch._numpy`` has no function of
the same name for (``np.random.permutation``, ``np.random.beta``, ``np.random.default_rng``) break at the call
(GB0294; a false all-clear before); those it has (``np.fft.fftfreq``, ``np.linalg.norm``, ``svd``) do not;
a class (``np.random.RandomState``) breaks with another id (GB0156) and is not claimed. Read from torch's files
(scripts/update_torch_ops.py ``numpy_module_names``); measured on torch 2.13."""
import numpy as np
import torch


def f_perm(x):
    v = np.random.permutation(4)
    return x + 1, v


def f_beta(x):
    v = np.random.beta(1.0, 1.0, size=3)
    return x + 1, v


def f_rng(x):
    v = np.random.default_rng(0)
    return x + 1, v


def f_fftfreq(x):
    v = np.fft.fftfreq(4)
    return x + 1, v


def f_norm(x):
    v = np.linalg.norm(np.ones(3))
    return x + 1, v


def f_rank(x):
    v = np.linalg.matrix_rank(np.ones((3, 3)))
    return x + 1, v


def f_svd(x):
    v = np.linalg.svd(np.ones((3, 3)))
    return x + 1, v


def f_fftshift(x):
    v = np.fft.fftshift(np.ones(4))
    return x + 1, v


def f_normal(x):
    v = np.random.normal(0.0, 1.0, size=3)
    return x + 1, v


def f_multi(x):
    v = np.linalg.multi_dot([np.ones((2, 2)), np.ones((2, 2))])
    return x + 1, v


def main():
    for f in [f_perm, f_beta, f_rng, f_fftfreq, f_norm, f_rank, f_svd, f_fftshift, f_normal, f_multi]:
        try:
            torch.compile(f, backend='eager')(torch.randn(4))
        except Exception as e:
            print('ERR', f.__name__, type(e).__name__, str(e)[:150])


if __name__ == '__main__':
    main()
