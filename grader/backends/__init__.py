"""Where kernels run, behind one interface (base.Backend): gpu/ (CuPy, the only package that
imports it) and cpu (the emulator: g++ programs run in the sandbox)."""
