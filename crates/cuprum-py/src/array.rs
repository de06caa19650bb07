//! `cuprum.ndarray`: a `cuprum::Array` seen from Python. The hot paths (attributes, operators,
//! basic indexing, reductions, `get`) are here; NumPy's many other methods live in
//! `cuprum/_methods.py` and are found through `__getattr__`.

use crate::convert::{
    asarray, np_dtype, numpy_module, opt_dtype, py_scalar, scalar_to_py, to_device, to_numpy, OrRaise,
};
use crate::device::PyDevice;
use cuprum::ufunc::{BinaryOp, Operand, ReduceOp, UnaryOp};

/// An optional Python argument.
type Opt<'a> = Option<&'a Bound<'a, PyAny>>;
use cuprum::{Array, DType, Scalar, SliceElem};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyEllipsis, PyList, PySlice, PyTuple};

/// An n-dimensional array on the CPU or a CUDA GPU, with NumPy's semantics (`cupy.ndarray`).
#[pyclass(module = "cuprum", name = "ndarray", frozen, weakref, from_py_object)]
#[derive(Clone)]
pub struct PyNdarray(pub Array);

/// A new Python array.
pub fn wrap(py: Python<'_>, a: Array) -> PyResult<Bound<'_, PyNdarray>> {
    Bound::new(py, PyNdarray(a))
}

static PY_HELPERS: PyOnceLock<pyo3::Py<PyModule>> = PyOnceLock::new();
static NP_GENERIC: PyOnceLock<pyo3::Py<PyAny>> = PyOnceLock::new();

/// `cuprum._methods`: NumPy's methods written in Python, and the general indexing.
pub fn helpers(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    Ok(PY_HELPERS.get_or_try_init(py, || py.import("cuprum._methods").map(Bound::unbind))?.bind(py))
}

pub fn np_generic(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    Ok(NP_GENERIC.get_or_try_init(py, || numpy_module(py)?.getattr("generic").map(Bound::unbind))?.bind(py))
}

/// The other operand of an operator: an array on `dev`, a weak Python scalar, or `None` when the
/// operator should return `NotImplemented`.
pub enum Other {
    Array(Array),
    Scalar(Scalar),
}

impl Other {
    pub fn operand(&self) -> Operand<'_> {
        match self {
            Other::Array(a) => Operand::Array(a),
            Other::Scalar(s) => Operand::Scalar(*s),
        }
    }
}

pub fn other_operand(py: Python<'_>, obj: &Bound<'_, PyAny>, dev: cuprum::Device) -> PyResult<Option<Other>> {
    if let Ok(x) = obj.cast::<PyNdarray>() {
        return Ok(Some(Other::Array(x.get().0.clone())));
    }
    if let Some(s) = py_scalar(obj)? {
        return Ok(Some(Other::Scalar(s)));
    }
    if obj.is_instance(np_generic(py)?)? {
        // NumPy scalars are strong (NEP 50): a 0-d array of their dtype.
        return Ok(Some(Other::Array(asarray(py, obj, None, Some(dev))?)));
    }
    if let Ok(a) = obj.cast::<PyUntypedArray>() {
        if dev.is_cpu() || a.ndim() == 0 {
            return Ok(Some(Other::Array(asarray(py, obj, None, Some(dev))?)));
        }
        return Err(PyTypeError::new_err("Unsupported type <class 'numpy.ndarray'>"));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        return Ok(Some(Other::Array(asarray(py, obj, None, Some(dev))?)));
    }
    Ok(None)
}

/// An operand of a function (not an operator): as `other_operand`, and anything else array-like
/// converted onto `dev` (lists, tuples, objects NumPy can read).
pub fn operand_on(py: Python<'_>, obj: &Bound<'_, PyAny>, dev: cuprum::Device) -> PyResult<Other> {
    match other_operand(py, obj, dev)? {
        Some(o) => Ok(o),
        None => Ok(Other::Array(asarray(py, obj, None, Some(dev))?)),
    }
}

/// `a op n` (or `n op a`) for a Python int `n` beyond int64 and uint64 (the operand
/// `other_operand` refused with an OverflowError), where NumPy 2 answers rather than raising:
/// with a float or complex array and in true division the int is a float (`f4 + 2**70`,
/// `i4 / 2**64`); an integer array compares with it as the exact numbers do (`i4 == 2**64` is all
/// False, `i4 < 2**64` all True). `None`: not such a case (an integer array's arithmetic with it
/// stays NumPy's OverflowError).
fn huge_int(
    op: BinaryOp,
    a: &Array,
    other: &Bound<'_, PyAny>,
    reflected: bool,
) -> PyResult<Option<cuprum::Result<Array>>> {
    if !other.is_exact_instance_of::<pyo3::types::PyInt>() {
        return Ok(None);
    }
    use BinaryOp::*;
    let dt = a.dtype();
    if dt.is_float() || dt.is_complex() || op == TrueDivide {
        // Beyond a float64 too: Python's own OverflowError ("int too large to convert to float").
        let s = Operand::Scalar(Scalar::Float(other.extract::<f64>()?));
        return Ok(Some(if reflected { cuprum::ufunc::binary(op, s, a) } else { cuprum::ufunc::binary(op, a, s) }));
    }
    if !dt.is_integer() {
        return Ok(None);
    }
    // Every element lies between the ends of its dtype, so below a huge positive int and above a
    // huge negative one (`reflected`: `n op a`, the comparison seen from the other side).
    let positive = other.gt(0)?;
    let a_below = |below: bool| if reflected { !below } else { below };
    let value = match op {
        Equal => false,
        NotEqual => true,
        Less | LessEqual => a_below(positive),
        Greater | GreaterEqual => !a_below(positive),
        _ => return Ok(None),
    };
    Ok(Some(cuprum::full(a.shape(), value, DType::Bool, &a.device())))
}

/// `a op b` (or `b op a` when `reflected`); `NotImplemented` for operands cuprum does not know.
fn binop(py: Python<'_>, op: BinaryOp, a: &Array, other: &Bound<'_, PyAny>, reflected: bool) -> PyResult<Py<PyAny>> {
    let o = match other_operand(py, other, a.device()) {
        Ok(Some(o)) => o,
        Ok(None) => return Ok(py.NotImplemented()),
        // Off the hot path: only an int beyond int64 and uint64 is refused here.
        Err(e) => match huge_int(op, a, other, reflected)? {
            Some(r) => return Ok(wrap(py, r.py()?)?.into_any().unbind()),
            None => return Err(e),
        },
    };
    // Without the GIL: a CPU kernel, a first-use compile or a pool wait lets other threads run.
    let r = py.detach(|| {
        if reflected {
            cuprum::ufunc::binary(op, o.operand(), a)
        } else {
            cuprum::ufunc::binary(op, a, o.operand())
        }
    });
    Ok(wrap(py, r.py()?)?.into_any().unbind())
}

/// `a op= b`: the result written into `a` (same-kind casting, as NumPy).
fn inplace(py: Python<'_>, op: BinaryOp, slf: &Bound<'_, PyNdarray>, other: &Bound<'_, PyAny>) -> PyResult<()> {
    let a = slf.get().0.clone();
    let Some(o) = other_operand(py, other, a.device())? else {
        return Err(PyTypeError::new_err(format!(
            "unsupported operand type(s) for {}: 'cuprum.ndarray' and '{}'",
            op.name(),
            other.get_type().name()?
        )));
    };
    let mut out = a.clone();
    py.detach(|| cuprum::ufunc::binary_out(op, &a, o.operand(), &mut out)).py()
}

fn unop(py: Python<'_>, op: UnaryOp, a: &Array) -> PyResult<Py<PyAny>> {
    Ok(wrap(py, py.detach(|| cuprum::ufunc::unary(op, a)).py()?)?.into_any().unbind())
}

/// One element of a basic index, or `None` when the key needs advanced indexing.
fn basic_elem(obj: &Bound<'_, PyAny>) -> PyResult<Option<SliceElem>> {
    if let Ok(s) = obj.cast::<PySlice>() {
        let get = |name: &str| -> PyResult<Option<isize>> {
            let v = s.getattr(name)?;
            if v.is_none() {
                return Ok(None);
            }
            if v.is_instance_of::<pyo3::types::PyInt>() || v.hasattr("__index__")? {
                return index_int(&v).map(Some);
            }
            Err(PyTypeError::new_err("slice indices must be integers or None or have an __index__ method"))
        };
        let step = get("step")?.unwrap_or(1);
        if step == 0 {
            return Err(PyValueError::new_err("slice step cannot be zero"));
        }
        return Ok(Some(SliceElem::Slice { start: get("start")?, end: get("stop")?, step }));
    }
    if obj.is_none() {
        return Ok(Some(SliceElem::NewAxis));
    }
    if obj.is_instance_of::<PyEllipsis>() {
        return Ok(Some(SliceElem::Ellipsis));
    }
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return Ok(None);
    }
    if obj.is_instance_of::<pyo3::types::PyInt>() {
        return Ok(Some(SliceElem::Index(index_int(obj)?)));
    }
    if !obj.is_instance_of::<PyNdarray>() && !obj.is_instance_of::<PyUntypedArray>() {
        if let Ok(i) = obj.call_method0("__index__") {
            return Ok(Some(SliceElem::Index(index_int(&i)?)));
        }
    }
    Ok(None)
}

/// An integer index (saturated: an index past isize is out of range anyway).
fn index_int(v: &Bound<'_, PyAny>) -> PyResult<isize> {
    if let Ok(i) = v.extract::<isize>() {
        return Ok(i);
    }
    let i = v.call_method0("__index__").map_err(|_| {
        PyIndexError::new_err(
            "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices",
        )
    })?;
    let neg = i.lt(0)?;
    Ok(i.extract::<isize>().unwrap_or(if neg { isize::MIN } else { isize::MAX }))
}

/// The basic index of a key, or `None` when it needs advanced indexing.
fn basic_key(key: &Bound<'_, PyAny>) -> PyResult<Option<Vec<SliceElem>>> {
    if let Ok(t) = key.cast::<PyTuple>() {
        let mut v = Vec::with_capacity(t.len());
        for e in t.iter() {
            match basic_elem(&e)? {
                Some(s) => v.push(s),
                None => return Ok(None),
            }
        }
        return Ok(Some(v));
    }
    Ok(basic_elem(key)?.map(|e| vec![e]))
}

fn opt_axis(axis: Option<&Bound<'_, PyAny>>) -> PyResult<cuprum::Axes> {
    crate::funcs::axes(axis)
}

/// A reduction with NumPy's arguments (`dtype`, `out`, `keepdims`, `ddof`).
#[allow(clippy::too_many_arguments)]
pub fn reduce(
    py: Python<'_>,
    op: cuprum::ufunc::ReduceOp,
    a: &Array,
    axis: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    ddof: f64,
) -> PyResult<Py<PyAny>> {
    use cuprum::ufunc::ReduceOp::*;
    let axes = opt_axis(axis)?;
    let dt = opt_dtype(py, dtype)?;
    let r = py.detach(|| {
        let src = match (op, dt) {
            // NumPy's dtype= is the accumulator's (and result's) dtype.
            (Sum | Prod | Mean | Var | Std, Some(d)) if d != a.dtype() => a.astype(d)?,
            _ => a.clone(),
        };
        src.reduce(op, axes, keepdims, ddof)
    });
    let mut r = r.py()?;
    if let (Some(d), Sum | Prod | Min | Max | Mean | Var | Std) = (dt, op) {
        if r.dtype() != d {
            r = r.astype(d).py()?;
        }
    }
    if let Some(o) = out.filter(|o| !o.is_none()) {
        let o = o.cast::<PyNdarray>().map_err(|_| PyTypeError::new_err("out must be a cuprum.ndarray"))?;
        let mut dst = o.get().0.clone();
        if dst.shape() != r.shape() {
            return Err(PyValueError::new_err(format!(
                "output parameter has the wrong shape {:?}, expected {:?}",
                dst.shape(),
                r.shape()
            )));
        }
        dst.assign(&r).py()?;
        return Ok(o.clone().into_any().unbind());
    }
    Ok(wrap(py, r)?.into_any().unbind())
}

fn truth_error() -> PyErr {
    PyValueError::new_err("The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()")
}

impl PyNdarray {
    fn scalar(&self, py: Python<'_>) -> PyResult<Scalar> {
        let a = self.0.clone();
        py.detach(move || a.item_scalar()).py()
    }
}

#[pymethods]
impl PyNdarray {
    // ------------------------------------------------------------------ attributes
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.shape())
    }
    #[getter]
    fn strides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.strides())
    }
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArrayDescr> {
        np_dtype(py, self.0.dtype())
    }
    #[getter]
    fn ndim(&self) -> usize {
        self.0.ndim()
    }
    #[getter]
    fn size(&self) -> usize {
        self.0.size()
    }
    #[getter]
    fn nbytes(&self) -> usize {
        self.0.nbytes()
    }
    #[getter]
    fn itemsize(&self) -> usize {
        self.0.itemsize()
    }
    #[getter]
    fn device(&self) -> PyDevice {
        PyDevice(self.0.device())
    }
    #[getter(T)]
    fn t(&self) -> PyNdarray {
        PyNdarray(self.0.t())
    }
    #[getter(mT)]
    fn mt(&self) -> PyResult<PyNdarray> {
        if self.0.ndim() < 2 {
            return Err(PyValueError::new_err("matrix transpose with ndim < 2 is undefined"));
        }
        Ok(PyNdarray(self.0.swapaxes(-1, -2).py()?))
    }
    #[getter]
    fn real(&self) -> PyNdarray {
        PyNdarray(self.0.real())
    }
    #[getter]
    fn imag(&self) -> PyResult<PyNdarray> {
        Ok(PyNdarray(self.0.imag().py()?))
    }
    /// The address of the first element (CuPy's `x.data.ptr`).
    #[getter]
    fn ptr(&self) -> u64 {
        cuprum::interop::data_ptr(&self.0)
    }
    #[getter]
    fn base(&self) -> Option<PyNdarray> {
        None
    }
    /// C- and F-contiguity (`x.flags.c_contiguous`).
    #[getter]
    fn _contiguity(&self) -> (bool, bool) {
        (self.0.is_c_contiguous(), self.0.is_f_contiguous())
    }

    // ------------------------------------------------------------------ host values
    /// A host copy as a `numpy.ndarray` (CuPy's `get`).
    #[pyo3(signature = (stream=None, order="C", out=None, blocking=true))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        stream: Option<&Bound<'py, PyAny>>,
        order: &str,
        out: Option<&Bound<'py, PyAny>>,
        blocking: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Some(o) = out.filter(|o| !o.is_none()) {
            // Straight into `out`'s memory when it is a NumPy array of this shape and dtype: on
            // `stream`, and without waiting when `out` is page-locked and `blocking` is false
            // (CuPy's contract: synchronise the stream before reading it).
            let fits = o.cast::<PyUntypedArray>().is_ok_and(|h| h.shape() == self.0.shape());
            if fits && !self.0.device().is_cpu() {
                if let Some(mut h) = crate::convert::host_array_of(o)?.filter(|h| h.dtype() == self.0.dtype()) {
                    let src = self.0.clone();
                    let stream = stream.map(|s| s.getattr("_s")).transpose()?;
                    let wait = blocking;
                    crate::funcs::on_stream(py, stream.as_ref(), move || {
                        h.copy_from(&src)?;
                        if wait {
                            cuprum::interop::host_ready(&h);
                        }
                        Ok(())
                    })?;
                    return Ok(o.clone());
                }
            }
        }
        let h = match stream.filter(|s| !s.is_none()) {
            Some(s) => {
                let src = self.0.clone();
                let host =
                    crate::funcs::on_stream(py, Some(&s.getattr("_s")?), move || src.to_device(&cuprum::Device::Cpu))?;
                crate::convert::numpy_view(py, host)?
            }
            None => to_numpy(py, &self.0)?,
        };
        let h = if order == "F" { numpy_module(py)?.call_method1("asfortranarray", (h,))? } else { h };
        match out {
            Some(o) if !o.is_none() => {
                numpy_module(py)?.call_method1("copyto", (o, &h))?;
                Ok(o.clone())
            }
            _ => Ok(h),
        }
    }

    /// The one element as a Python scalar.
    #[pyo3(signature = (*args))]
    fn item<'py>(&self, py: Python<'py>, args: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
        if !args.is_empty() {
            return helpers(py)?.call_method1("item", (PyNdarray(self.0.clone()), args));
        }
        if self.0.size() != 1 {
            return Err(PyValueError::new_err("can only convert an array of size 1 to a Python scalar"));
        }
        scalar_to_py(py, self.scalar(py)?)
    }

    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_numpy(py, &self.0)?.call_method0("tolist")
    }

    fn __bool__(&self, py: Python<'_>) -> PyResult<bool> {
        if self.0.size() != 1 {
            if self.0.size() == 0 {
                return Err(PyValueError::new_err("The truth value of an empty array is ambiguous. Use `array.size > 0` to check that an array is not empty."));
            }
            return Err(truth_error());
        }
        Ok(match self.scalar(py)? {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::UInt(u) => u != 0,
            Scalar::Float(f) => f != 0.0,
            Scalar::Complex(a, b) => a != 0.0 || b != 0.0,
        })
    }
    fn __float__(&self, py: Python<'_>) -> PyResult<f64> {
        if self.0.size() != 1 {
            return Err(PyTypeError::new_err("only length-1 arrays can be converted to Python scalars"));
        }
        match self.scalar(py)? {
            Scalar::Complex(..) => Err(PyTypeError::new_err("can't convert complex to float")),
            s => Ok(s.as_f64()),
        }
    }
    fn __int__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.0.size() != 1 {
            return Err(PyTypeError::new_err("only length-1 arrays can be converted to Python scalars"));
        }
        match self.scalar(py)? {
            Scalar::Float(f) => Ok(pyo3::types::PyFloat::new(py, f).call_method0("__int__")?),
            Scalar::Complex(..) => Err(PyTypeError::new_err("can't convert complex to int")),
            s => scalar_to_py(py, s)?.call_method0("__int__"),
        }
    }
    fn __index__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.0.ndim() != 0 || !self.0.dtype().is_integer() {
            return Err(PyTypeError::new_err("only integer scalar arrays can be converted to a scalar index"));
        }
        scalar_to_py(py, self.scalar(py)?)
    }
    fn __complex__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.0.size() != 1 {
            return Err(PyTypeError::new_err("only length-1 arrays can be converted to Python scalars"));
        }
        let (re, im) = self.scalar(py)?.as_c64();
        Ok(pyo3::types::PyComplex::from_doubles(py, re, im).into_any())
    }
    fn __len__(&self) -> PyResult<usize> {
        if self.0.ndim() == 0 {
            return Err(PyTypeError::new_err("len() of unsized object"));
        }
        Ok(self.0.shape()[0])
    }
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.0.ndim() == 0 {
            return Err(PyTypeError::new_err("iteration over a 0-d array"));
        }
        let n = self.0.shape()[0];
        let items: Vec<PyNdarray> =
            (0..n).map(|i| self.0.at(i as isize).map(PyNdarray)).collect::<cuprum::Result<_>>().py()?;
        PyList::new(py, items)?.try_iter().map(|i| i.into_any())
    }
    fn __repr__(&self, py: Python<'_>) -> String {
        let a = self.0.clone();
        py.detach(move || format!("{a:?}"))
    }
    fn __str__(&self, py: Python<'_>) -> String {
        let a = self.0.clone();
        py.detach(move || format!("{a}"))
    }
    fn __format__(&self, py: Python<'_>, spec: &str) -> PyResult<String> {
        if spec.is_empty() {
            return Ok(self.__str__(py));
        }
        if self.0.ndim() != 0 {
            return Err(PyTypeError::new_err("unsupported format string passed to cuprum.ndarray.__format__"));
        }
        let v = self.item(py, &PyTuple::empty(py))?;
        v.call_method1("__format__", (spec,))?.extract()
    }

    // ------------------------------------------------------------------ conversions
    #[pyo3(signature = (dtype, order="K", casting=None, subok=None, copy=true))]
    fn astype(
        &self,
        py: Python<'_>,
        dtype: &Bound<'_, PyAny>,
        order: &str,
        casting: Option<&str>,
        subok: Option<bool>,
        copy: bool,
    ) -> PyResult<PyNdarray> {
        let _ = (order, subok);
        let d = crate::convert::to_dtype(py, dtype)?;
        if d == self.0.dtype() && !copy {
            return Ok(PyNdarray(self.0.clone()));
        }
        let a = match casting {
            None | Some("unsafe") => self.0.astype(d),
            Some(c) => self.0.astype_with(d, crate::funcs::casting(c)?),
        };
        Ok(PyNdarray(a.py()?))
    }
    #[pyo3(signature = (*shape, order="C", copy=None))]
    fn reshape(&self, shape: &Bound<'_, PyTuple>, order: &str, copy: Option<bool>) -> PyResult<PyNdarray> {
        let dims = crate::funcs::shape_arg_i(shape)?;
        if order != "C" {
            return Err(PyValueError::new_err("cuprum reshapes in C order only"));
        }
        let r = self.0.reshape(dims).py()?;
        if copy == Some(true) {
            return Ok(PyNdarray(r.copy().py()?));
        }
        if copy == Some(false) && !r.shares_storage(&self.0) {
            return Err(PyValueError::new_err("Unable to avoid creating a copy while reshaping."));
        }
        Ok(PyNdarray(r))
    }
    #[pyo3(signature = (order="C"))]
    fn copy(&self, order: &str) -> PyResult<PyNdarray> {
        let _ = order;
        Ok(PyNdarray(self.0.copy().py()?))
    }
    #[pyo3(signature = (dtype=None))]
    fn view(&self, py: Python<'_>, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<PyNdarray> {
        match opt_dtype(py, dtype)? {
            Some(d) => Ok(PyNdarray(self.0.view_as(d).py()?)),
            None => Ok(PyNdarray(self.0.view())),
        }
    }
    #[pyo3(signature = (order="C"))]
    fn ravel(&self, order: &str) -> PyResult<PyNdarray> {
        let _ = order;
        Ok(PyNdarray(self.0.ravel().py()?))
    }
    #[pyo3(signature = (order="C"))]
    fn flatten(&self, order: &str) -> PyResult<PyNdarray> {
        let _ = order;
        Ok(PyNdarray(self.0.flatten().py()?))
    }
    #[pyo3(signature = (*axes))]
    fn transpose(&self, axes: &Bound<'_, PyTuple>) -> PyResult<PyNdarray> {
        if axes.is_empty() || (axes.len() == 1 && axes.get_item(0)?.is_none()) {
            return Ok(PyNdarray(self.0.transpose()));
        }
        let ax = crate::funcs::shape_arg_i(axes)?;
        Ok(PyNdarray(self.0.permute(&ax).py()?))
    }
    fn swapaxes(&self, axis1: isize, axis2: isize) -> PyResult<PyNdarray> {
        Ok(PyNdarray(self.0.swapaxes(axis1, axis2).py()?))
    }
    #[pyo3(signature = (axis=None))]
    fn squeeze(&self, axis: Option<&Bound<'_, PyAny>>) -> PyResult<PyNdarray> {
        match axis.filter(|a| !a.is_none()) {
            None => Ok(PyNdarray(self.0.squeeze())),
            Some(a) => Ok(PyNdarray(self.0.squeeze_axes(opt_axis(Some(a))?).py()?)),
        }
    }
    fn fill(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let s = crate::convert::any_scalar(value)?;
        let mut a = self.0.clone();
        a.fill(s).py()
    }
    /// A copy on another device (`"cpu"`, `"cuda:0"`, a `Device`); the same array when already there.
    #[pyo3(signature = (device, /, *, stream=None))]
    fn to_device(
        &self,
        py: Python<'_>,
        device: &Bound<'_, PyAny>,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyNdarray> {
        let _ = stream;
        let d = to_device(Some(device))?;
        if d == self.0.device() {
            return Ok(PyNdarray(self.0.clone()));
        }
        let a = self.0.clone();
        Ok(PyNdarray(py.detach(move || a.to_device(&d)).py()?))
    }

    // ------------------------------------------------------------------ indexing
    fn __getitem__<'py>(slf: &Bound<'py, Self>, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let a = &slf.get().0;
        if let Some(k) = basic_key(key)? {
            return Ok(wrap(py, a.slice(&k).py()?)?.into_any());
        }
        if let Ok(m) = key.cast::<PyNdarray>() {
            let m = &m.get().0;
            if m.dtype() == DType::Bool && m.ndim() > 0 {
                return Ok(wrap(py, a.mask(m).py()?)?.into_any());
            }
        }
        helpers(py)?.call_method1("getitem", (slf, key))
    }

    fn __setitem__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        let a = &slf.get().0;
        if let Some(k) = basic_key(key)? {
            let mut v = a.clone().slice_mut(&k).py()?;
            if let Some(s) = py_scalar(value)? {
                return v.fill(s).py();
            }
            let src = asarray(py, value, None, Some(a.device()))?;
            return v.assign(&src).py();
        }
        if let Ok(m) = key.cast::<PyNdarray>() {
            let m = &m.get().0;
            if m.dtype() == DType::Bool && m.ndim() > 0 {
                let mut dst = a.clone();
                if let Some(s) = py_scalar(value)? {
                    return dst.mask_fill(m, s).py();
                }
                let src = asarray(py, value, None, Some(a.device()))?;
                return dst.mask_assign(m, &src).py();
            }
        }
        helpers(py)?.call_method1("setitem", (slf, key, value))?;
        Ok(())
    }

    /// The priority of the array type where types mix (CuPy's 100, above NumPy's 0; Dask's
    /// tensordot picks the chunk type by it).
    #[classattr]
    #[pyo3(name = "__array_priority__")]
    fn array_priority() -> f64 {
        100.0
    }

    /// NumPy's other methods (`cuprum/_methods.py`), bound to this array.
    fn __getattr__<'py>(slf: &Bound<'py, Self>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        if name.starts_with("__") {
            return Err(pyo3::exceptions::PyAttributeError::new_err(format!(
                "'cuprum.ndarray' object has no attribute '{name}'"
            )));
        }
        let h = helpers(py)?;
        if let Ok(p) = h.getattr(format!("prop_{name}").as_str()) {
            return p.call1((slf,));
        }
        match h.getattr(format!("method_{name}").as_str()) {
            Ok(f) => {
                let functools = py.import("functools")?;
                functools.call_method1("partial", (f, slf))
            }
            Err(_) => Err(pyo3::exceptions::PyAttributeError::new_err(format!(
                "'cuprum.ndarray' object has no attribute '{name}'"
            ))),
        }
    }

    // ------------------------------------------------------------------ reductions (see `reduce`)
    #[pyo3(signature = (axis=None, dtype=None, out=None, keepdims=false))]
    fn sum(&self, py: Python<'_>, axis: Opt<'_>, dtype: Opt<'_>, out: Opt<'_>, keepdims: bool) -> PyResult<Py<PyAny>> {
        reduce(py, ReduceOp::Sum, &self.0, axis, dtype, out, keepdims, 0.0)
    }
    #[pyo3(signature = (axis=None, dtype=None, out=None, keepdims=false))]
    fn prod(&self, py: Python<'_>, axis: Opt<'_>, dtype: Opt<'_>, out: Opt<'_>, keepdims: bool) -> PyResult<Py<PyAny>> {
        reduce(py, ReduceOp::Prod, &self.0, axis, dtype, out, keepdims, 0.0)
    }
    #[pyo3(signature = (axis=None, dtype=None, out=None, keepdims=false))]
    fn mean(&self, py: Python<'_>, axis: Opt<'_>, dtype: Opt<'_>, out: Opt<'_>, keepdims: bool) -> PyResult<Py<PyAny>> {
        reduce(py, ReduceOp::Mean, &self.0, axis, dtype, out, keepdims, 0.0)
    }
    #[pyo3(signature = (axis=None, dtype=None, out=None, ddof=0.0, keepdims=false))]
    fn var(
        &self,
        py: Python<'_>,
        axis: Opt<'_>,
        dtype: Opt<'_>,
        out: Opt<'_>,
        ddof: f64,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        reduce(py, ReduceOp::Var, &self.0, axis, dtype, out, keepdims, ddof)
    }
    #[pyo3(signature = (axis=None, dtype=None, out=None, ddof=0.0, keepdims=false))]
    fn std(
        &self,
        py: Python<'_>,
        axis: Opt<'_>,
        dtype: Opt<'_>,
        out: Opt<'_>,
        ddof: f64,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        reduce(py, ReduceOp::Std, &self.0, axis, dtype, out, keepdims, ddof)
    }
    #[pyo3(signature = (axis=None, out=None, keepdims=false))]
    fn min(&self, py: Python<'_>, axis: Opt<'_>, out: Opt<'_>, keepdims: bool) -> PyResult<Py<PyAny>> {
        reduce(py, ReduceOp::Min, &self.0, axis, None, out, keepdims, 0.0)
    }
    #[pyo3(signature = (axis=None, out=None, keepdims=false))]
    fn max(&self, py: Python<'_>, axis: Opt<'_>, out: Opt<'_>, keepdims: bool) -> PyResult<Py<PyAny>> {
        reduce(py, ReduceOp::Max, &self.0, axis, None, out, keepdims, 0.0)
    }
    #[pyo3(signature = (axis=None, out=None, keepdims=false))]
    fn any(&self, py: Python<'_>, axis: Opt<'_>, out: Opt<'_>, keepdims: bool) -> PyResult<Py<PyAny>> {
        reduce(py, ReduceOp::Any, &self.0, axis, None, out, keepdims, 0.0)
    }
    #[pyo3(signature = (axis=None, out=None, keepdims=false))]
    fn all(&self, py: Python<'_>, axis: Opt<'_>, out: Opt<'_>, keepdims: bool) -> PyResult<Py<PyAny>> {
        reduce(py, ReduceOp::All, &self.0, axis, None, out, keepdims, 0.0)
    }
    #[pyo3(signature = (axis=None, out=None, *, keepdims=false))]
    fn argmin(&self, py: Python<'_>, axis: Opt<'_>, out: Opt<'_>, keepdims: bool) -> PyResult<Py<PyAny>> {
        reduce(py, ReduceOp::ArgMin, &self.0, axis, None, out, keepdims, 0.0)
    }
    #[pyo3(signature = (axis=None, out=None, *, keepdims=false))]
    fn argmax(&self, py: Python<'_>, axis: Opt<'_>, out: Opt<'_>, keepdims: bool) -> PyResult<Py<PyAny>> {
        reduce(py, ReduceOp::ArgMax, &self.0, axis, None, out, keepdims, 0.0)
    }

    // ------------------------------------------------------------------ operators
    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::Add, &self.0, o, false)
    }
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::Add, &self.0, o, true)
    }
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::Subtract, &self.0, o, false)
    }
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::Subtract, &self.0, o, true)
    }
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::Multiply, &self.0, o, false)
    }
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::Multiply, &self.0, o, true)
    }
    fn __truediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::TrueDivide, &self.0, o, false)
    }
    fn __rtruediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::TrueDivide, &self.0, o, true)
    }
    fn __floordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::FloorDivide, &self.0, o, false)
    }
    fn __rfloordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::FloorDivide, &self.0, o, true)
    }
    fn __mod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::Remainder, &self.0, o, false)
    }
    fn __rmod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::Remainder, &self.0, o, true)
    }
    fn __pow__(&self, py: Python<'_>, o: &Bound<'_, PyAny>, modulo: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        if modulo.is_some_and(|m| !m.is_none()) {
            return Ok(py.NotImplemented());
        }
        // NumPy's fast path: `x ** 2` with a Python 2 is `square(x)` (so bool ** 2 is int8).
        if matches!(py_scalar(o)?, Some(Scalar::Int(2))) || matches!(py_scalar(o)?, Some(Scalar::Float(f)) if f == 2.0)
        {
            return unop(py, UnaryOp::Square, &self.0);
        }
        binop(py, BinaryOp::Power, &self.0, o, false)
    }
    fn __rpow__(&self, py: Python<'_>, o: &Bound<'_, PyAny>, modulo: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        if modulo.is_some_and(|m| !m.is_none()) {
            return Ok(py.NotImplemented());
        }
        binop(py, BinaryOp::Power, &self.0, o, true)
    }
    fn __and__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::BitwiseAnd, &self.0, o, false)
    }
    fn __rand__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::BitwiseAnd, &self.0, o, true)
    }
    fn __or__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::BitwiseOr, &self.0, o, false)
    }
    fn __ror__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::BitwiseOr, &self.0, o, true)
    }
    fn __xor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::BitwiseXor, &self.0, o, false)
    }
    fn __rxor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::BitwiseXor, &self.0, o, true)
    }
    fn __lshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::LeftShift, &self.0, o, false)
    }
    fn __rlshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::LeftShift, &self.0, o, true)
    }
    fn __rshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::RightShift, &self.0, o, false)
    }
    fn __rrshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binop(py, BinaryOp::RightShift, &self.0, o, true)
    }
    fn __matmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(Other::Array(b)) = other_operand(py, o, self.0.device())? else { return Ok(py.NotImplemented()) };
        Ok(wrap(py, cuprum::matmul(&self.0, &b).py()?)?.into_any().unbind())
    }
    fn __rmatmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(Other::Array(b)) = other_operand(py, o, self.0.device())? else { return Ok(py.NotImplemented()) };
        Ok(wrap(py, cuprum::matmul(&b, &self.0).py()?)?.into_any().unbind())
    }
    fn __iadd__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf.py(), BinaryOp::Add, slf, o)
    }
    fn __isub__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf.py(), BinaryOp::Subtract, slf, o)
    }
    fn __imul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf.py(), BinaryOp::Multiply, slf, o)
    }
    fn __itruediv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf.py(), BinaryOp::TrueDivide, slf, o)
    }
    fn __ifloordiv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf.py(), BinaryOp::FloorDivide, slf, o)
    }
    fn __imod__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf.py(), BinaryOp::Remainder, slf, o)
    }
    fn __ipow__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>, _m: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        inplace(slf.py(), BinaryOp::Power, slf, o)
    }
    fn __iand__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf.py(), BinaryOp::BitwiseAnd, slf, o)
    }
    fn __ior__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf.py(), BinaryOp::BitwiseOr, slf, o)
    }
    fn __ixor__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf.py(), BinaryOp::BitwiseXor, slf, o)
    }
    fn __ilshift__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf.py(), BinaryOp::LeftShift, slf, o)
    }
    fn __irshift__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf.py(), BinaryOp::RightShift, slf, o)
    }
    fn __neg__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if self.0.dtype() == DType::Bool {
            return Err(PyTypeError::new_err("The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or the logical_not function instead."));
        }
        unop(py, UnaryOp::Negative, &self.0)
    }
    fn __pos__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        unop(py, UnaryOp::Positive, &self.0)
    }
    fn __abs__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        unop(py, UnaryOp::Absolute, &self.0)
    }
    fn __invert__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        unop(py, UnaryOp::Invert, &self.0)
    }
    fn __richcmp__(&self, py: Python<'_>, o: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let op = match op {
            CompareOp::Lt => BinaryOp::Less,
            CompareOp::Le => BinaryOp::LessEqual,
            CompareOp::Eq => BinaryOp::Equal,
            CompareOp::Ne => BinaryOp::NotEqual,
            CompareOp::Gt => BinaryOp::Greater,
            CompareOp::Ge => BinaryOp::GreaterEqual,
        };
        match other_operand(py, o, self.0.device()) {
            Ok(Some(b)) => Ok(wrap(py, cuprum::ufunc::binary(op, &self.0, b.operand()).py()?)?.into_any().unbind()),
            // `a == None`, `a != "text"`: NumPy compares each element with the object (an array
            // of False, or True for `!=`); ordering them is Python's TypeError (NotImplemented).
            Ok(None) if matches!(op, BinaryOp::Equal | BinaryOp::NotEqual) && !o.hasattr("__array__")? => {
                let all = cuprum::full(self.0.shape(), op == BinaryOp::NotEqual, DType::Bool, &self.0.device());
                Ok(wrap(py, all.py()?)?.into_any().unbind())
            }
            Ok(None) => Ok(py.NotImplemented()),
            Err(e) => match huge_int(op, &self.0, o, false)? {
                Some(r) => Ok(wrap(py, r.py()?)?.into_any().unbind()),
                None => Err(e),
            },
        }
    }

    // ------------------------------------------------------------------ protocols
    /// CuPy's refusal of implicit device-to-host copies; a zero-copy NumPy view of a CPU array.
    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        slf: &Bound<'py, Self>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        if !slf.get().0.device().is_cpu() {
            return Err(PyTypeError::new_err(
                "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy array explicitly.",
            ));
        }
        helpers(py)?.call_method1("host_view", (slf, dtype, copy))
    }
    fn __array_function__<'py>(
        slf: &Bound<'py, Self>,
        func: &Bound<'py, PyAny>,
        types: &Bound<'py, PyAny>,
        args: &Bound<'py, PyAny>,
        kwargs: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        helpers(slf.py())?.call_method1("array_function", (slf, func, types, args, kwargs))
    }
    #[pyo3(signature = (ufunc, method, *inputs, **kwargs))]
    fn __array_ufunc__<'py>(
        slf: &Bound<'py, Self>,
        ufunc: &Bound<'py, PyAny>,
        method: &Bound<'py, PyAny>,
        inputs: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, pyo3::types::PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        helpers(slf.py())?.call_method1("array_ufunc", (slf, ufunc, method, inputs, kwargs))
    }
    #[pyo3(signature = (*, api_version=None))]
    fn __array_namespace__<'py>(&self, py: Python<'py>, api_version: Option<&str>) -> PyResult<Bound<'py, PyModule>> {
        if let Some(v) = api_version {
            if !["2021.12", "2022.12", "2023.12", "2024.12", "2025.12"].contains(&v) {
                return Err(PyValueError::new_err(format!("Unrecognized array API version: {v}")));
            }
        }
        py.import("cuprum")
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        helpers(py)?.call_method1("reduce_array", (PyNdarray(self.0.clone()),))
    }
    #[getter]
    fn __cuda_array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::dlpack::cai(py, &self.0)
    }
    fn __dlpack_device__(&self) -> (i32, i32) {
        crate::dlpack::dlpack_device(&self.0)
    }
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        stream: Option<&Bound<'py, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::dlpack::export(py, &self.0, stream, max_version, dl_device, copy)
    }
}

/// `cuprum.asarray(obj, dtype=None, device=None)`: the fast path of the Python function.
#[pyfunction]
#[pyo3(signature = (obj, dtype=None, device=None))]
pub fn _asarray(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyNdarray> {
    let dt = opt_dtype(py, dtype)?;
    let dev = match device {
        Some(d) if !d.is_none() => Some(to_device(Some(d))?),
        _ => None,
    };
    Ok(PyNdarray(asarray(py, obj, dt, dev)?))
}
