# memcheck with two threads: cuFFT plans in one, NVRTC kernels in the other (does the tool hang?)
import threading, cupy as cp
def ffts():
    for s in [64, 100, 128, 210, 256, 999, 1024]:
        cp.fft.rfft2(cp.ones((s, s), cp.float32)); cp.fft.fft(cp.ones(s, cp.complex128))
    cp.cuda.Device().synchronize()
def kernels():
    for i in range(8):
        k = cp.RawKernel(r'extern "C" __global__ void f%d(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += %d; }' % (i, i), 'f%d' % i)
        x = cp.zeros(1000, cp.float32); k((4,), (256,), (x, cp.int32(1000))); cp.cuda.Device().synchronize()
a, b = threading.Thread(target=ffts), threading.Thread(target=kernels)
a.start(); b.start(); a.join(); b.join(); print("two threads done")
