//! `cuprum.fuse`: a Python function traced into a `cuprum::Expr` (one fused kernel), and CuPy's
//! kernels from CUDA C source (`ElementwiseKernel`, `ReductionKernel`, `RawKernel`, `RawModule`).

use crate::array::{other_operand, Other, PyNdarray};
use crate::convert::{py_scalar, to_dtype, OrRaise};
use cuprum::ufunc::{BinaryOp, Operand, UnaryOp};
use cuprum::{Expr, Scalar};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// A formula being traced by `cuprum.fuse` (a node of one fused kernel).
#[pyclass(module = "cuprum", name = "_Expr", frozen)]
#[derive(Clone)]
pub struct PyExpr(pub Expr);

/// The other side of a traced operation.
enum Side {
    Expr(Expr),
    Scalar(Scalar),
}

fn side(obj: &Bound<'_, PyAny>) -> PyResult<Option<Side>> {
    if let Ok(e) = obj.cast::<PyExpr>() {
        return Ok(Some(Side::Expr(e.get().0.clone())));
    }
    if let Ok(a) = obj.cast::<PyNdarray>() {
        return Ok(Some(Side::Expr(a.get().0.expr())));
    }
    Ok(py_scalar(obj)?.map(Side::Scalar))
}

/// `e op other` (`other op e` when `reflected`); Python scalars stay weak, as in NumPy.
fn combine(e: Expr, op: BinaryOp, other: Side, reflected: bool) -> PyResult<Expr> {
    Ok(match (other, reflected) {
        (Side::Expr(o), false) => e.binary_ufunc(op, o),
        (Side::Expr(o), true) => o.binary_ufunc(op, e),
        (Side::Scalar(s), false) => e.binary_scalar(op, s),
        (Side::Scalar(s), true) => Expr::scalar_binary(s, op, e),
    })
}

/// `cuprum.fuse`'s call (`Fused.__call__`): `func` traced with its array arguments as formula
/// leaves, then the formula it returns (or each formula of a returned tuple) computed as one
/// kernel; `func` called as it is when no argument is an array. In Rust, so that a call costs
/// the trace and the kernel, not a Python loop over the arguments.
#[pyfunction]
#[pyo3(signature = (func, args, kwargs=None))]
pub fn fuse_call<'py>(
    func: &Bound<'py, PyAny>,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = func.py();
    let mut traced = Vec::with_capacity(args.len());
    let mut any = false;
    for a in args.iter() {
        match a.cast::<PyNdarray>() {
            Ok(x) => {
                any = true;
                traced.push(Bound::new(py, PyExpr(x.get().0.expr()))?.into_any());
            }
            Err(_) => traced.push(a),
        }
    }
    if !any {
        return func.call(args, kwargs);
    }
    let r = func.call(PyTuple::new(py, traced)?, kwargs)?;
    let eval = |r: Bound<'py, PyAny>| -> PyResult<Bound<'py, PyAny>> {
        match r.cast::<PyExpr>() {
            Ok(e) => Ok(Bound::new(py, e.get().eval(py)?)?.into_any()),
            Err(_) => Ok(r),
        }
    };
    if let Ok(t) = r.cast::<PyTuple>() {
        let items = t.iter().map(eval).collect::<PyResult<Vec<_>>>()?;
        return Ok(PyTuple::new(py, items)?.into_any());
    }
    eval(r)
}

fn op_of<T: Copy>(all: &[T], name: &str, f: impl Fn(T) -> &'static str) -> PyResult<T> {
    all.iter()
        .copied()
        .find(|&o| f(o) == name)
        .ok_or_else(|| PyValueError::new_err(format!("cuprum.fuse: no ufunc {name}")))
}

fn bin(slf: &PyExpr, py: Python<'_>, op: BinaryOp, o: &Bound<'_, PyAny>, reflected: bool) -> PyResult<Py<PyAny>> {
    match side(o)? {
        Some(s) => Ok(Bound::new(py, PyExpr(combine(slf.0.clone(), op, s, reflected)?))?.into_any().unbind()),
        None => Ok(py.NotImplemented()),
    }
}

#[pymethods]
impl PyExpr {
    #[new]
    fn new(a: &PyNdarray) -> Self {
        PyExpr(a.0.expr())
    }
    fn unary(&self, name: &str) -> PyResult<PyExpr> {
        Ok(PyExpr(self.0.clone().unary_ufunc(op_of(&UnaryOp::ALL, name, UnaryOp::name)?)))
    }
    #[pyo3(signature = (name, other, reflected=false))]
    fn binary(&self, name: &str, other: &Bound<'_, PyAny>, reflected: bool) -> PyResult<PyExpr> {
        let op = op_of(&BinaryOp::ALL, name, BinaryOp::name)?;
        let s = side(other)?.ok_or_else(|| PyTypeError::new_err("cuprum.fuse: unsupported operand"))?;
        Ok(PyExpr(combine(self.0.clone(), op, s, reflected)?))
    }
    fn where_(&self, x: &Bound<'_, PyAny>, y: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        let (sx, sy) = (side(x)?, side(y)?);
        let e = self.0.clone();
        let r = match (sx, sy) {
            (Some(Side::Expr(a)), Some(Side::Expr(b))) => e.where_(a, b),
            (Some(Side::Expr(a)), Some(Side::Scalar(Scalar::Float(b)))) => e.where_(a, b),
            (Some(Side::Expr(a)), Some(Side::Scalar(Scalar::Int(b)))) => e.where_(a, b),
            (Some(Side::Scalar(Scalar::Float(a))), Some(Side::Expr(b))) => e.where_(a, b),
            (Some(Side::Scalar(Scalar::Int(a))), Some(Side::Expr(b))) => e.where_(a, b),
            (Some(Side::Scalar(Scalar::Int(a))), Some(Side::Scalar(Scalar::Int(b)))) => e.where_(a, b),
            (Some(Side::Scalar(Scalar::Float(a))), Some(Side::Scalar(Scalar::Float(b)))) => e.where_(a, b),
            _ => return Err(PyTypeError::new_err("cuprum.fuse: unsupported operands of where")),
        };
        Ok(PyExpr(r))
    }
    fn astype(&self, py: Python<'_>, dtype: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(PyExpr(self.0.clone().astype(to_dtype(py, dtype)?)))
    }
    #[pyo3(signature = (name, axis=None, ddof=0.0))]
    fn reduce(&self, name: &str, axis: Option<&Bound<'_, PyAny>>, ddof: f64) -> PyResult<PyExpr> {
        let ax = crate::funcs::axes(axis)?;
        let e = self.0.clone();
        Ok(PyExpr(match name {
            "sum" => e.sum(ax),
            "prod" => e.prod(ax),
            "mean" => e.mean(ax),
            "min" => e.min(ax),
            "max" => e.max(ax),
            "any" => e.any(ax),
            "all" => e.all(ax),
            "argmin" => e.argmin(ax),
            "argmax" => e.argmax(ax),
            "var" => e.var_with(ax, &cuprum::VarOptions { ddof, ..Default::default() }),
            "std" => e.std_with(ax, &cuprum::VarOptions { ddof, ..Default::default() }),
            _ => return Err(PyValueError::new_err(format!("cuprum.fuse: no reduction {name}"))),
        }))
    }
    /// Computes the formula (one fused kernel).
    fn eval(&self, py: Python<'_>) -> PyResult<PyNdarray> {
        let e = self.0.clone();
        Ok(PyNdarray(py.detach(move || e.eval()).py()?))
    }
    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::Add, o, false)
    }
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::Add, o, true)
    }
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::Subtract, o, false)
    }
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::Subtract, o, true)
    }
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::Multiply, o, false)
    }
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::Multiply, o, true)
    }
    fn __truediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::TrueDivide, o, false)
    }
    fn __rtruediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::TrueDivide, o, true)
    }
    fn __floordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::FloorDivide, o, false)
    }
    fn __mod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::Remainder, o, false)
    }
    fn __pow__(&self, py: Python<'_>, o: &Bound<'_, PyAny>, _m: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::Power, o, false)
    }
    fn __and__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::BitwiseAnd, o, false)
    }
    fn __or__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::BitwiseOr, o, false)
    }
    fn __xor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::BitwiseXor, o, false)
    }
    fn __lt__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::Less, o, false)
    }
    fn __le__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::LessEqual, o, false)
    }
    fn __gt__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::Greater, o, false)
    }
    fn __ge__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::GreaterEqual, o, false)
    }
    fn __eq__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::Equal, o, false)
    }
    fn __ne__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        bin(self, py, BinaryOp::NotEqual, o, false)
    }
    fn __neg__(&self) -> PyExpr {
        PyExpr(self.0.clone().unary_ufunc(UnaryOp::Negative))
    }
    fn __pos__(&self) -> PyExpr {
        self.clone()
    }
    fn __abs__(&self) -> PyExpr {
        PyExpr(self.0.clone().unary_ufunc(UnaryOp::Absolute))
    }
    fn __invert__(&self) -> PyExpr {
        PyExpr(self.0.clone().unary_ufunc(UnaryOp::Invert))
    }
}

// ---------------------------------------------------------------------------------- source kernels

fn operands<'a>(py: Python<'_>, args: &Bound<'_, PyTuple>, keep: &'a mut Vec<Other>) -> PyResult<Vec<Operand<'a>>> {
    let dev = args
        .iter()
        .find_map(|a| a.cast::<PyNdarray>().ok().map(|a| a.get().0.device()))
        .unwrap_or_else(crate::device::current_device);
    for a in args.iter() {
        // A NumPy scalar is a kernel argument of its value (the parameter's type casts it, as CuPy
        // passes it by value), not a 0-d array copied to the device on every call.
        if a.is_instance(crate::array::np_generic(py)?)? {
            if let Some(s) = py_scalar(&a.call_method0("item")?)? {
                keep.push(Other::Scalar(s));
                continue;
            }
        }
        keep.push(other_operand(py, &a, dev)?.ok_or_else(|| {
            PyTypeError::new_err(format!(
                "Unsupported type {}",
                a.get_type().name().map(|n| n.to_string()).unwrap_or_default()
            ))
        })?);
    }
    Ok(keep.iter().map(|o| o.operand()).collect())
}

/// `cupy.ElementwiseKernel(in_params, out_params, operation, name)`.
#[pyclass(module = "cuprum", name = "ElementwiseKernel", frozen)]
pub struct PyElementwiseKernel(cuprum::ElementwiseKernel);

#[pymethods]
impl PyElementwiseKernel {
    #[new]
    #[pyo3(signature = (in_params, out_params, operation, name="kernel", reduce_dims=true, preamble="", no_return=false, return_tuple=false, loop_prep="", after_loop="", options=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        in_params: &str,
        out_params: &str,
        operation: &str,
        name: &str,
        reduce_dims: bool,
        preamble: &str,
        no_return: bool,
        return_tuple: bool,
        loop_prep: &str,
        after_loop: &str,
        options: Option<Vec<String>>,
    ) -> PyResult<Self> {
        let _ = (reduce_dims, no_return, return_tuple);
        let mut k = cuprum::ElementwiseKernel::new(in_params, out_params, operation, name).py()?;
        if !preamble.is_empty() {
            k = k.preamble(preamble);
        }
        if !loop_prep.is_empty() {
            k = k.loop_prep(loop_prep);
        }
        if !after_loop.is_empty() {
            k = k.after_loop(after_loop);
        }
        if let Some(o) = options {
            let o: Vec<&str> = o.iter().map(String::as_str).collect();
            k = k.options(&o);
        }
        Ok(PyElementwiseKernel(k))
    }
    #[getter]
    fn name(&self) -> String {
        self.0.name().to_string()
    }
    #[pyo3(signature = (*args, size=None))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        size: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut keep = Vec::new();
        let ops = operands(py, args, &mut keep)?;
        let outs = match size {
            Some(n) => self.0.call_size(ops, n).py()?,
            None => self.0.call_multi(ops).py()?,
        };
        if outs.len() == 1 {
            return Ok(Bound::new(py, PyNdarray(outs.into_iter().next().unwrap_or_else(|| unreachable!())))?.into_any());
        }
        Ok(PyTuple::new(py, outs.into_iter().map(PyNdarray))?.into_any())
    }
}

/// `cupy.ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name)`.
#[pyclass(module = "cuprum", name = "ReductionKernel", frozen)]
pub struct PyReductionKernel(cuprum::ReductionKernel);

#[pymethods]
impl PyReductionKernel {
    #[new]
    #[pyo3(signature = (in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name="reduce_kernel", reduce_type=None, reduce_dims=true, preamble="", options=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        in_params: &str,
        out_params: &str,
        map_expr: &str,
        reduce_expr: &str,
        post_map_expr: &str,
        identity: Option<&str>,
        name: &str,
        reduce_type: Option<&str>,
        reduce_dims: bool,
        preamble: &str,
        options: Option<Vec<String>>,
    ) -> PyResult<Self> {
        let _ = reduce_dims;
        let mut k =
            cuprum::ReductionKernel::new(in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name)
                .py()?;
        if let Some(t) = reduce_type {
            k = k.reduce_type(t);
        }
        if !preamble.is_empty() {
            k = k.preamble(preamble);
        }
        if let Some(o) = options {
            let o: Vec<&str> = o.iter().map(String::as_str).collect();
            k = k.options(&o);
        }
        Ok(PyReductionKernel(k))
    }
    #[pyo3(signature = (*args, axis=None, keepdims=false))]
    fn __call__(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<PyNdarray> {
        let mut keep = Vec::new();
        let ops = operands(py, args, &mut keep)?;
        Ok(PyNdarray(
            if keepdims {
                self.0.call_keepdims(ops, crate::funcs::axes(axis)?)
            } else {
                self.0.call(ops, crate::funcs::axes(axis)?)
            }
            .py()?,
        ))
    }
}

/// `cupy.RawKernel(code, name, options=())`: `kernel(grid, block, args, shared_mem=0)`.
#[pyclass(module = "cuprum", name = "RawKernel", frozen)]
pub struct PyRawKernel(cuprum::RawKernel);

fn dim3(o: &Bound<'_, PyAny>) -> PyResult<cuprum::kernel::Dim3> {
    if let Ok(x) = o.extract::<usize>() {
        return Ok(x.into());
    }
    let v: Vec<usize> = o.extract()?;
    Ok(match v.as_slice() {
        [x] => (*x).into(),
        [x, y] => (*x, *y).into(),
        [x, y, z] => (*x, *y, *z).into(),
        _ => return Err(PyValueError::new_err("grid and block take 1 to 3 dimensions")),
    })
}

#[pymethods]
impl PyRawKernel {
    #[new]
    #[pyo3(signature = (code, name, options=None, backend="nvrtc", translate_cucomplex=false, enable_cooperative_groups=false, jitify=false))]
    fn new(
        code: &str,
        name: &str,
        options: Option<Vec<String>>,
        backend: &str,
        translate_cucomplex: bool,
        enable_cooperative_groups: bool,
        jitify: bool,
    ) -> PyResult<Self> {
        let _ = (backend, translate_cucomplex, enable_cooperative_groups, jitify);
        let mut k = cuprum::RawKernel::new(code, name).py()?;
        if let Some(o) = options {
            let o: Vec<&str> = o.iter().map(String::as_str).collect();
            k = k.options(&o);
        }
        Ok(PyRawKernel(k))
    }
    #[pyo3(signature = (grid, block, args, *, shared_mem=0))]
    fn __call__(
        &self,
        grid: &Bound<'_, PyAny>,
        block: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        shared_mem: u32,
    ) -> PyResult<()> {
        launch(&self.0, grid, block, args, shared_mem)
    }
    fn compile(&self) -> PyResult<()> {
        self.0.compile(&crate::device::current_device()).py()
    }
}

fn launch(
    k: &cuprum::RawKernel,
    grid: &Bound<'_, PyAny>,
    block: &Bound<'_, PyAny>,
    args: &Bound<'_, PyTuple>,
    shared_mem: u32,
) -> PyResult<()> {
    let mut arrays = Vec::new();
    for a in args.iter() {
        if let Ok(x) = a.cast::<PyNdarray>() {
            arrays.push(Some(x.get().0.clone()));
        } else {
            arrays.push(None);
        }
    }
    let mut raw: Vec<cuprum::kernel::RawArg<'_>> = Vec::new();
    for (a, arr) in args.iter().zip(&arrays) {
        if let Some(x) = arr {
            raw.push(x.into());
            continue;
        }
        // NumPy scalars keep their C type; Python ints are long long, floats double (CuPy's rule).
        let np_kind: Option<(String, usize)> = a
            .getattr("dtype")
            .ok()
            .and_then(|d| Some((d.getattr("kind").ok()?.extract().ok()?, d.getattr("itemsize").ok()?.extract().ok()?)));
        raw.push(match np_kind.as_ref().map(|(k, s)| (k.as_str(), *s)) {
            Some(("f", 4)) => a.extract::<f32>()?.into(),
            Some(("f", 8)) => a.extract::<f64>()?.into(),
            Some(("i", 1)) => a.extract::<i8>()?.into(),
            Some(("i", 2)) => a.extract::<i16>()?.into(),
            Some(("i", 4)) => a.extract::<i32>()?.into(),
            Some(("i", 8)) => a.extract::<i64>()?.into(),
            Some(("u", 1)) => a.extract::<u8>()?.into(),
            Some(("u", 2)) => a.extract::<u16>()?.into(),
            Some(("u", 4)) => a.extract::<u32>()?.into(),
            Some(("u", 8)) => a.extract::<u64>()?.into(),
            Some(("b", _)) => a.extract::<bool>()?.into(),
            _ => match py_scalar(&a)? {
                Some(Scalar::Int(i)) => i.into(),
                Some(Scalar::UInt(u)) => u.into(),
                Some(Scalar::Float(f)) => f.into(),
                Some(Scalar::Bool(b)) => b.into(),
                _ => return Err(PyTypeError::new_err(format!("Unsupported type {}", a.get_type().name()?))),
            },
        });
    }
    let (g, b) = (dim3(grid)?, dim3(block)?);
    // SAFETY: CuPy's contract for RawKernel: the caller's kernel matches the arguments and
    // stays within the arrays it is given.
    unsafe { k.launch_shared((g, b), shared_mem, raw) }.py()
}

/// `cupy.RawModule(code=, options=)`: `get_function(name)`.
#[pyclass(module = "cuprum", name = "RawModule", frozen)]
pub struct PyRawModule(cuprum::RawModule);

#[pymethods]
impl PyRawModule {
    #[new]
    #[pyo3(signature = (*, code, options=None, backend="nvrtc", translate_cucomplex=false, enable_cooperative_groups=false, name_expressions=None, jitify=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        code: &str,
        options: Option<Vec<String>>,
        backend: &str,
        translate_cucomplex: bool,
        enable_cooperative_groups: bool,
        name_expressions: Option<Vec<String>>,
        jitify: bool,
    ) -> Self {
        let _ = (backend, translate_cucomplex, enable_cooperative_groups, name_expressions, jitify);
        let mut m = cuprum::RawModule::new(code);
        if let Some(o) = options {
            let o: Vec<&str> = o.iter().map(String::as_str).collect();
            m = m.options(&o);
        }
        PyRawModule(m)
    }
    fn get_function(&self, name: &str) -> PyResult<PyRawKernel> {
        Ok(PyRawKernel(self.0.get_function(name).py()?))
    }
}
