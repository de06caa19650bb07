// The host check of complex.cuh (scripts/complex-host/check.sh): its functions against glibc's.
#include <cmath>
#include <cstring>
#include <cstdio>
struct Z{double re,im;}; struct ZF{float re,im;};
extern "C" { ZF csinhf(ZF); ZF ccoshf(ZF); ZF csinf(ZF); ZF ccosf(ZF); ZF ctanhf(ZF); ZF ctanf(ZF); ZF cexpf(ZF); ZF clogf(ZF); ZF csqrtf(ZF); ZF casinf(ZF); ZF cacosf(ZF); ZF catanf(ZF); ZF cpowf(ZF, ZF);}

extern "C" { Z csinh(Z); Z ccosh(Z); Z csin(Z); Z ccos(Z); Z ctanh(Z); Z ctan(Z); Z cexp(Z); Z clog(Z); Z csqrt(Z); Z casin(Z); Z cacos(Z); Z catan(Z); Z cpow(Z, Z);}
using std::isinf; using std::isfinite; using std::signbit;
#define __device__
#define __host__
#define __forceinline__ inline
#define __align__(n) alignas(n)
static inline float __int_as_float(int i){float f;memcpy(&f,&i,4);return f;}
static inline double __longlong_as_double(unsigned long long i){double f;memcpy(&f,&i,8);return f;}
static inline int __float_as_int(float f){int i;memcpy(&i,&f,4);return i;}
static inline long long __double_as_longlong(double f){long long i;memcpy(&i,&f,8);return i;}
static inline void atomicAdd(float*a,float b){*a+=b;} static inline void atomicAdd(double*a,double b){*a+=b;}
#include "complex.cuh"
static bool same(double a,double b){ if(a!=a) return b!=b; return a==b && signbit(a)==signbit(b);}
static double TOL=1.6e-15;
static bool close(double a,double b){ if(a!=a||b!=b) return (a!=a)&&(b!=b); if(isinf(a)||isinf(b)||a==0||b==0) return a==b && signbit(a)==signbit(b); return fabs(a-b)<=TOL*fabs(b);}
int bad=0,tot=0;
#define CHK(NAME, GPU, LIBM) { c128 g=GPU(c128(x,y)); Z r=LIBM(Z{x,y}); tot++; \
  if(!(close(g.re,r.re)&&close(g.im,r.im))){ bad++; if(bad<60) printf("%-6s (%g,%g): gpu (%g,%g) libm (%g,%g)\n",NAME,x,y,g.re,g.im,r.re,r.im);} }
#define CHKF(NAME, GPU, LIBM) { c64 g=GPU(c64(x,y)); ZF r=LIBM(ZF{(float)x,(float)y}); tot++; \
  if(!(close(g.re,r.re)&&close(g.im,r.im))){ bad++; if(bad<60) printf("f %-6s (%g,%g): gpu (%g,%g) libm (%g,%g)\n",NAME,x,y,g.re,g.im,r.re,r.im);} }
int main(){
  double v[]={0.,-0.,1.,-1.,0.5,-2.5,3.,1e-300,30.,-30.,700.,-710.,1000.,-1000.,INFINITY,-INFINITY,NAN,-NAN, 1e300};
  for(double x: v) for(double y: v){
    CHK("sinh",csinh_,csinh) CHK("cosh",ccosh_,ccosh) CHK("sin",csin_,csin) CHK("cos",ccos_,ccos)
    CHK("tanh",ctanh_,ctanh) CHK("tan",ctan_,ctan) CHK("exp",cexp_,cexp) CHK("log",clog_,clog) CHK("sqrt",csqrt_,csqrt)
    CHK("asin",casin_,casin) CHK("acos",cacos_,cacos) CHK("atan",catan_,catan)
  }
  // pow outside NumPy's integer-exponent loop (exponents up to 30 scale clog's last-ulp
  // differences: 1e-13) (which cuprum's CPU has as NumPy's): glibc's
  // cexp(b * clog(a)), with C99's multiplication (infinities recovered from NaN products).
  TOL=1e-13;
  double pv[]={0.,-0.,1.,-1.,0.5,-2.5,1e-300,30.,-30.,INFINITY,-INFINITY,NAN};
  for(double x: pv) for(double y: pv) for(double u: pv) for(double w: pv){
    if (w == 0 && u == (double)(long long)u && fabs(u) < 100) continue;
    if (x == 0 && y == 0) continue;
    c128 g=cpow_(c128(x,y),c128(u,w)); Z r=cpow(Z{x,y},Z{u,w}); tot++;
    if(!(close(g.re,r.re)&&close(g.im,r.im))){ bad++; if(bad<60) printf("pow   (%g,%g)**(%g,%g): gpu (%.17g,%.17g) libm (%.17g,%.17g) rel %.2g\n",x,y,u,w,g.re,g.im,r.re,r.im, std::max(fabs(g.re-r.re)/fabs(r.re), fabs(g.im-r.im)/fabs(r.im)));}
  }
  TOL=1e-6;
  float vf[]={0.f,-0.f,1.f,-1.f,0.5f,-2.5f,3.f,1e-30f,30.f,-30.f,80.f,-90.f,100.f,-200.f,INFINITY,-INFINITY,NAN,-NAN,1e30f};
  for(float xf: vf) for(float yf: vf){ double x=xf,y=yf;
    CHKF("sinh",csinh_,csinhf) CHKF("cosh",ccosh_,ccoshf) CHKF("sin",csin_,csinf) CHKF("cos",ccos_,ccosf)
    CHKF("tanh",ctanh_,ctanhf) CHKF("tan",ctan_,ctanf) CHKF("exp",cexp_,cexpf) CHKF("log",clog_,clogf) CHKF("sqrt",csqrt_,csqrtf)
    CHKF("asin",casin_,casinf) CHKF("acos",cacos_,cacosf) CHKF("atan",catan_,catanf)
  }
  TOL=2e-5;
  float pf[]={0.f,-0.f,1.f,-1.f,0.5f,-2.5f,1e-30f,30.f,-30.f,INFINITY,-INFINITY,NAN};
  for(float x: pf) for(float y: pf) for(float u: pf) for(float w: pf){
    if (w == 0 && u == (float)(long long)u && fabsf(u) < 100) continue;
    if (x == 0 && y == 0) continue;
    c64 g=cpow_(c64(x,y),c64(u,w)); ZF r=cpowf(ZF{x,y},ZF{u,w}); tot++;
    if(!(close(g.re,r.re)&&close(g.im,r.im))){ bad++; if(bad<60) printf("f pow (%g,%g)**(%g,%g): gpu (%.9g,%.9g) libm (%.9g,%.9g)\n",x,y,u,w,g.re,g.im,r.re,r.im);}
  }
  printf("%d of %d differ\n",bad,tot);
}
