import os


class OpBuilder:

    def jit_load(self, verbose=True):
        saved_env = {}
        for var in ('CXX', 'CPATH'):
            saved_env[var] = os.environ.get(var)
        return saved_env

    def nvcc_args(self):
        args = ['-O3']
        if os.environ.get('DS_DEBUG_CUDA_BUILD', '0') == '1':
            args.append('--ptxas-options=-v')
        return args
