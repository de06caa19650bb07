//! `numpy.linalg`, `numpy.fft`, `numpy.random` and `scipy.ndimage` behind the Python modules
//! of the same names. Solvers, plans and CPU kernels run with the GIL released.

use crate::array::PyNdarray;
use crate::convert::{to_device, to_dtype, OrRaise};
use cuprum::Array;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::array::PyNdarray as A;

// ----------------------------------------------------------------------------- scipy.stats

/// `scipy.stats.norm`'s function `name` (pdf, logpdf, cdf, sf, ppf, isf) with scalar `loc`
/// and `scale`.
#[pyfunction]
pub fn stats_norm(py: Python<'_>, name: &str, x: &A, loc: f64, scale: f64) -> PyResult<A> {
    let d = cuprum::scipy::stats::norm(loc, scale);
    let x = x.0.clone();
    let name = name.to_string();
    let r = py.detach(move || match name.as_str() {
        "pdf" => d.pdf(&x),
        "logpdf" => d.logpdf(&x),
        "cdf" => d.cdf(&x),
        "sf" => d.sf(&x),
        "ppf" => d.ppf(&x),
        "isf" => d.isf(&x),
        _ => Err(cuprum::Error::Value(format!("no norm function {name}"))),
    });
    Ok(A(r.py()?))
}

// ---------------------------------------------------------------------------------- linalg

/// One-matrix linear algebra by name (`inv`, `det`, `cholesky`, `eigvalsh`, `eigvals`, `svdvals`,
/// `pinv`, `matrix_rank`, ...).
#[pyfunction]
#[pyo3(signature = (name, a, flag=false, tol=None))]
pub fn linalg1(py: Python<'_>, name: &str, a: &A, flag: bool, tol: Option<f64>) -> PyResult<A> {
    use cuprum::linalg as l;
    let x = a.0.clone();
    let name = name.to_string();
    let r = py.detach(move || match name.as_str() {
        "inv" => l::inv(&x),
        "det" => l::det(&x),
        "cholesky" => l::cholesky_with(&x, &l::CholeskyOptions { upper: flag }),
        "eigvalsh" => l::eigvalsh_with(&x, if flag { l::Uplo::U } else { l::Uplo::L }),
        "eigvals" => l::eigvals(&x),
        "svdvals" => l::svdvals(&x),
        "singular_values" => l::singular_values_with(&x, &l::SvdOptions { hermitian: flag, ..Default::default() }),
        "pinv" => l::pinv_with(&x, &l::PinvOptions { rcond: tol, hermitian: flag }),
        "matrix_rank" => l::matrix_rank_with(&x, &l::MatrixRankOptions { tol, hermitian: flag }),
        _ => Err(cuprum::Error::Value(format!("no linalg function {name}"))),
    });
    Ok(A(r.py()?))
}

#[pyfunction]
pub fn solve(py: Python<'_>, a: &A, b: &A) -> PyResult<A> {
    let (x, y) = (a.0.clone(), b.0.clone());
    Ok(A(py.detach(move || cuprum::linalg::solve(&x, &y)).py()?))
}

#[pyfunction]
pub fn slogdet(py: Python<'_>, a: &A) -> PyResult<(A, A)> {
    let x = a.0.clone();
    let r = py.detach(move || cuprum::linalg::slogdet(&x)).py()?;
    Ok((A(r.sign), A(r.logabsdet)))
}

#[pyfunction]
pub fn qr(py: Python<'_>, a: &A, mode: &str) -> PyResult<(Option<A>, A)> {
    use cuprum::linalg::QrMode;
    let m = match mode {
        "reduced" => QrMode::Reduced,
        "complete" => QrMode::Complete,
        "r" => QrMode::R,
        _ => return Err(PyValueError::new_err(format!("Unrecognized mode '{mode}'"))),
    };
    let x = a.0.clone();
    let r = py.detach(move || cuprum::linalg::qr_with(&x, m)).py()?;
    Ok((r.q.map(PyNdarray), A(r.r)))
}

#[pyfunction]
pub fn eig(py: Python<'_>, a: &A, hermitian: bool, upper: bool) -> PyResult<(A, A)> {
    use cuprum::linalg as l;
    let x = a.0.clone();
    let r = py
        .detach(
            move || if hermitian { l::eigh_with(&x, if upper { l::Uplo::U } else { l::Uplo::L }) } else { l::eig(&x) },
        )
        .py()?;
    Ok((A(r.eigenvalues), A(r.eigenvectors)))
}

#[pyfunction]
pub fn svd(py: Python<'_>, a: &A, full_matrices: bool, hermitian: bool) -> PyResult<(A, A, A)> {
    let x = a.0.clone();
    let r = py
        .detach(move || cuprum::linalg::svd_with(&x, &cuprum::linalg::SvdOptions { full_matrices, hermitian }))
        .py()?;
    Ok((A(r.u), A(r.s), A(r.vh)))
}

#[pyfunction]
#[pyo3(signature = (a, b, rcond=None))]
pub fn lstsq(py: Python<'_>, a: &A, b: &A, rcond: Option<f64>) -> PyResult<(A, A, usize, A)> {
    let (x, y) = (a.0.clone(), b.0.clone());
    let r = py.detach(move || cuprum::linalg::lstsq_with(&x, &y, &cuprum::linalg::LstsqOptions { rcond })).py()?;
    Ok((A(r.x), A(r.residuals), r.rank, A(r.s)))
}

/// `norm(x, ord, axis, keepdims)`: `ord` a number, `"fro"`, `"nuc"` or `None`.
#[pyfunction]
#[pyo3(signature = (x, ord=None, axis=None, keepdims=false, cond=false))]
pub fn norm(
    py: Python<'_>,
    x: &A,
    ord: Option<&Bound<'_, PyAny>>,
    axis: Option<Vec<isize>>,
    keepdims: bool,
    cond: bool,
) -> PyResult<A> {
    use cuprum::linalg::NormOrd;
    let o = match ord {
        None => None,
        Some(o) if o.is_none() => None,
        Some(o) => Some(match o.extract::<String>() {
            Ok(s) if s == "fro" => NormOrd::Fro,
            Ok(s) if s == "nuc" => NormOrd::Nuc,
            Ok(s) => return Err(PyValueError::new_err(format!("Invalid norm order '{s}' for matrices"))),
            Err(_) => NormOrd::P(o.extract::<f64>()?),
        }),
    };
    let a = x.0.clone();
    let r = py.detach(move || {
        if cond {
            match o {
                None => cuprum::linalg::cond(&a),
                Some(p) => cuprum::linalg::cond_with(&a, p),
            }
        } else {
            cuprum::linalg::norm_with(&a, &cuprum::linalg::NormOptions { ord: o, axis: axis.as_deref(), keepdims })
        }
    });
    Ok(A(r.py()?))
}

#[pyfunction]
pub fn matrix_power(py: Python<'_>, a: &A, n: i64) -> PyResult<A> {
    let x = a.0.clone();
    Ok(A(py.detach(move || cuprum::linalg::matrix_power(&x, n)).py()?))
}

#[pyfunction]
pub fn multi_dot(py: Python<'_>, xs: Vec<A>) -> PyResult<A> {
    let v: Vec<Array> = xs.into_iter().map(|a| a.0).collect();
    Ok(A(py
        .detach(move || {
            let r: Vec<&Array> = v.iter().collect();
            cuprum::linalg::multi_dot(&r)
        })
        .py()?))
}

// ---------------------------------------------------------------------------------- fft

/// The 1-d transforms by name (`fft`, `ifft`, `rfft`, `irfft`, `hfft`, `ihfft`).
#[pyfunction]
#[pyo3(signature = (name, a, n, axis, norm))]
pub fn fft1(py: Python<'_>, name: &str, a: &A, n: Option<usize>, axis: isize, norm: Option<&str>) -> PyResult<A> {
    use cuprum::fft as f;
    let nm: f::Norm = norm.unwrap_or("backward").parse().py()?;
    let x = a.0.clone();
    let name = name.to_string();
    let r = py.detach(move || match name.as_str() {
        "fft" => f::fft_with(&x, &f::FftOptions { n, axis, norm: nm }),
        "ifft" => f::ifft_with(&x, &f::FftOptions { n, axis, norm: nm }),
        "rfft" => f::rfft_with(&x, &f::FftOptions { n, axis, norm: nm }),
        "irfft" => f::irfft_with(&x, &f::FftOptions { n, axis, norm: nm }),
        "hfft" => f::hfft_with(&x, &f::FftOptions { n, axis, norm: nm }),
        "ihfft" => f::ihfft_with(&x, &f::FftOptions { n, axis, norm: nm }),
        _ => Err(cuprum::Error::Value(format!("no fft {name}"))),
    });
    Ok(A(r.py()?))
}

/// The n-d transforms by name (`fftn`, `ifftn`, `rfftn`, `irfftn`).
#[pyfunction]
#[pyo3(signature = (name, a, s, axes, norm))]
pub fn fftn(
    py: Python<'_>,
    name: &str,
    a: &A,
    s: Option<Vec<usize>>,
    axes: Option<Vec<isize>>,
    norm: Option<&str>,
) -> PyResult<A> {
    use cuprum::fft as f;
    let nm: f::Norm = norm.unwrap_or("backward").parse().py()?;
    let x = a.0.clone();
    let name = name.to_string();
    let r = py.detach(move || match name.as_str() {
        "fftn" => f::fftn_with(&x, &f::FftnOptions { s: s.as_deref(), axes: axes.as_deref(), norm: nm }),
        "ifftn" => f::ifftn_with(&x, &f::FftnOptions { s: s.as_deref(), axes: axes.as_deref(), norm: nm }),
        "rfftn" => f::rfftn_with(&x, &f::FftnOptions { s: s.as_deref(), axes: axes.as_deref(), norm: nm }),
        "irfftn" => f::irfftn_with(&x, &f::FftnOptions { s: s.as_deref(), axes: axes.as_deref(), norm: nm }),
        _ => Err(cuprum::Error::Value(format!("no fft {name}"))),
    });
    Ok(A(r.py()?))
}

#[pyfunction]
pub fn fftfreq(n: usize, d: f64, real: bool, device: Option<&Bound<'_, PyAny>>) -> PyResult<A> {
    let dev = to_device(device)?;
    Ok(A(if real { cuprum::fft::rfftfreq(n, d, &dev) } else { cuprum::fft::fftfreq(n, d, &dev) }.py()?))
}

#[pyfunction]
pub fn fftshift(x: &A, axes: Option<Vec<isize>>, inverse: bool) -> PyResult<A> {
    Ok(A(if inverse {
        cuprum::fft::ifftshift(&x.0, axes.as_deref())
    } else {
        cuprum::fft::fftshift(&x.0, axes.as_deref())
    }
    .py()?))
}

// ---------------------------------------------------------------------------------- random

/// `numpy.random.Generator` on Philox (NumPy's streams bit for bit).
#[pyclass(module = "cuprum.random", name = "_Generator", frozen)]
pub struct PyGenerator(std::sync::Mutex<cuprum::random::Generator>);

fn seed_of(seed: Option<&Bound<'_, PyAny>>) -> PyResult<cuprum::random::Seed> {
    use cuprum::random::Seed;
    let Some(s) = seed.filter(|s| !s.is_none()) else { return Ok(Seed::Entropy) };
    if let Ok(i) = s.extract::<i128>() {
        return Ok(if i < 0 { Seed::Negative(i) } else { Seed::Int(i as u128) });
    }
    if let Ok(v) = s.extract::<Vec<u64>>() {
        return Ok(Seed::from(v));
    }
    Err(pyo3::exceptions::PyTypeError::new_err("SeedSequence expects int or sequence of ints for entropy"))
}

impl PyGenerator {
    fn with<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut cuprum::random::Generator) -> cuprum::Result<R> + Send,
    ) -> PyResult<R> {
        py.detach(|| {
            let mut g = self.0.lock().unwrap_or_else(|e| e.into_inner());
            f(&mut g)
        })
        .py()
    }
}

#[pymethods]
impl PyGenerator {
    #[new]
    #[pyo3(signature = (seed=None, device=None))]
    fn new(seed: Option<&Bound<'_, PyAny>>, device: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let dev = to_device(device)?;
        let g = cuprum::random::default_rng(seed_of(seed)?).py()?.on(&dev);
        Ok(PyGenerator(std::sync::Mutex::new(g)))
    }
    /// A generator on Philox with this key and a zero counter: what NumPy's `Philox(seed_seq)` is,
    /// `key = seed_seq.generate_state(2, np.uint64)` (a spawned SeedSequence's too).
    #[staticmethod]
    #[pyo3(signature = (key0, key1, device=None))]
    fn from_key(key0: u64, key1: u64, device: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let dev = to_device(device)?;
        let g = cuprum::random::Generator::new(cuprum::random::Philox::from_key([key0, key1]), &dev);
        Ok(PyGenerator(std::sync::Mutex::new(g)))
    }
    fn random(&self, py: Python<'_>, size: Vec<usize>, dtype: &Bound<'_, PyAny>) -> PyResult<A> {
        let d = to_dtype(py, dtype)?;
        Ok(A(self.with(py, move |g| g.random(&size, d))?))
    }
    fn uniform(&self, py: Python<'_>, low: f64, high: f64, size: Vec<usize>) -> PyResult<A> {
        Ok(A(self.with(py, move |g| g.uniform(low, high, &size))?))
    }
    fn integers(
        &self,
        py: Python<'_>,
        low: i128,
        high: Option<i128>,
        size: Vec<usize>,
        dtype: &Bound<'_, PyAny>,
        endpoint: bool,
    ) -> PyResult<A> {
        let d = to_dtype(py, dtype)?;
        Ok(A(self.with(py, move |g| g.integers(low, high, &size, d, endpoint))?))
    }
    fn standard_normal(&self, py: Python<'_>, size: Vec<usize>, dtype: &Bound<'_, PyAny>) -> PyResult<A> {
        let d = to_dtype(py, dtype)?;
        Ok(A(self.with(py, move |g| g.standard_normal(&size, d))?))
    }
    fn normal(&self, py: Python<'_>, loc: f64, scale: f64, size: Vec<usize>) -> PyResult<A> {
        Ok(A(self.with(py, move |g| g.normal(loc, scale, &size))?))
    }
    fn standard_exponential(&self, py: Python<'_>, size: Vec<usize>, dtype: &Bound<'_, PyAny>) -> PyResult<A> {
        let d = to_dtype(py, dtype)?;
        Ok(A(self.with(py, move |g| g.standard_exponential(&size, d))?))
    }
    fn exponential(&self, py: Python<'_>, scale: f64, size: Vec<usize>) -> PyResult<A> {
        Ok(A(self.with(py, move |g| g.exponential(scale, &size))?))
    }
    fn standard_gamma(&self, py: Python<'_>, shape: f64, size: Vec<usize>, dtype: &Bound<'_, PyAny>) -> PyResult<A> {
        let d = to_dtype(py, dtype)?;
        Ok(A(self.with(py, move |g| g.standard_gamma(shape, &size, d))?))
    }
    fn gamma(&self, py: Python<'_>, shape: f64, scale: f64, size: Vec<usize>) -> PyResult<A> {
        Ok(A(self.with(py, move |g| g.gamma(shape, scale, &size))?))
    }
    fn beta(&self, py: Python<'_>, a: f64, b: f64, size: Vec<usize>) -> PyResult<A> {
        Ok(A(self.with(py, move |g| g.beta(a, b, &size))?))
    }
    fn poisson(&self, py: Python<'_>, lam: f64, size: Vec<usize>) -> PyResult<A> {
        Ok(A(self.with(py, move |g| g.poisson(lam, &size))?))
    }
    fn binomial(&self, py: Python<'_>, n: i64, p: f64, size: Vec<usize>) -> PyResult<A> {
        Ok(A(self.with(py, move |g| g.binomial(n, p, &size))?))
    }
    fn lognormal(&self, py: Python<'_>, mean: f64, sigma: f64, size: Vec<usize>) -> PyResult<A> {
        Ok(A(self.with(py, move |g| g.lognormal(mean, sigma, &size))?))
    }
    fn permutation(&self, py: Python<'_>, n: usize) -> PyResult<A> {
        Ok(A(self.with(py, move |g| g.permutation(n))?))
    }
    fn permutation_of(&self, py: Python<'_>, x: &A, axis: isize) -> PyResult<A> {
        let x = x.0.clone();
        Ok(A(self.with(py, move |g| g.permutation_of(&x, axis))?))
    }
    fn permuted(&self, py: Python<'_>, x: &A, axis: Option<isize>) -> PyResult<A> {
        let x = x.0.clone();
        Ok(A(self.with(py, move |g| g.permuted(&x, axis))?))
    }
    fn shuffle(&self, py: Python<'_>, x: &A, axis: isize) -> PyResult<()> {
        let mut x = x.0.clone();
        self.with(py, move |g| g.shuffle(&mut x, axis))
    }
    #[pyo3(signature = (a, size, replace, p, axis))]
    fn choice(
        &self,
        py: Python<'_>,
        a: &A,
        size: Vec<usize>,
        replace: bool,
        p: Option<&A>,
        axis: isize,
    ) -> PyResult<A> {
        let (x, p) = (a.0.clone(), p.map(|p| p.0.clone()));
        Ok(A(self.with(py, move |g| {
            g.choice_with(&x, &size, &cuprum::random::ChoiceOptions { replace, p: p.as_ref(), axis })
        })?))
    }
    #[pyo3(signature = (n, size, replace, p))]
    fn choice_index(&self, py: Python<'_>, n: usize, size: Vec<usize>, replace: bool, p: Option<&A>) -> PyResult<A> {
        let p = p.map(|p| p.0.clone());
        Ok(A(self.with(py, move |g| {
            g.choice_index_with(
                n,
                &size,
                &cuprum::random::ChoiceOptions { replace, p: p.as_ref(), ..Default::default() },
            )
        })?))
    }
    #[getter]
    fn device(&self) -> crate::device::PyDevice {
        crate::device::PyDevice(self.0.lock().unwrap_or_else(|e| e.into_inner()).device())
    }
}

/// `numpy.random.seed` for the legacy functions.
#[pyfunction]
#[pyo3(signature = (seed=None))]
pub fn legacy_seed(seed: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    cuprum::random::seed(seed_of(seed)?).py()
}

/// The legacy functions by name (`rand`, `randn`, `random`), of a float dtype (CuPy's `dtype=`).
#[pyfunction]
#[pyo3(signature = (name, size, device, dtype=None))]
pub fn legacy(
    py: Python<'_>,
    name: &str,
    size: Vec<usize>,
    device: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<A> {
    let dev = to_device(device)?;
    let d = match dtype {
        Some(d) if !d.is_none() => to_dtype(py, d)?,
        _ => cuprum::DType::Float64,
    };
    let name = name.to_string();
    let r = py.detach(move || match name.as_str() {
        "rand" | "random" => cuprum::random::random_of(&size, d, &dev),
        "randn" => cuprum::random::standard_normal_of(&size, d, &dev),
        _ => Err(cuprum::Error::Value(format!("no random function {name}"))),
    });
    Ok(A(r.py()?))
}
#[pyfunction]
pub fn legacy2(
    py: Python<'_>,
    name: &str,
    a: f64,
    b: f64,
    size: Vec<usize>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<A> {
    let dev = to_device(device)?;
    let name = name.to_string();
    let r = py.detach(move || match name.as_str() {
        "uniform" => cuprum::random::uniform(a, b, &size, &dev),
        "normal" => cuprum::random::normal(a, b, &size, &dev),
        _ => Err(cuprum::Error::Value(format!("no random function {name}"))),
    });
    Ok(A(r.py()?))
}
#[pyfunction]
pub fn legacy_randint(
    py: Python<'_>,
    low: i128,
    high: Option<i128>,
    size: Vec<usize>,
    dtype: &Bound<'_, PyAny>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<A> {
    let (d, dev) = (to_dtype(py, dtype)?, to_device(device)?);
    Ok(A(py.detach(move || cuprum::random::randint(low, high, &size, d, &dev)).py()?))
}
#[pyfunction]
pub fn legacy_permutation(py: Python<'_>, n: usize, device: Option<&Bound<'_, PyAny>>) -> PyResult<A> {
    let dev = to_device(device)?;
    Ok(A(py.detach(move || cuprum::random::permutation(n, &dev)).py()?))
}
#[pyfunction]
pub fn legacy_shuffle(py: Python<'_>, x: &A) -> PyResult<()> {
    let mut x = x.0.clone();
    py.detach(move || cuprum::random::shuffle(&mut x)).py()
}

// ---------------------------------------------------------------------------------- ndimage

/// `label(input, structure, output)`: (labels, count); with `output`, the labels go there.
#[pyfunction]
#[pyo3(signature = (input, structure=None, output=None))]
pub fn label(py: Python<'_>, input: &A, structure: Option<&A>, output: Option<&A>) -> PyResult<(Option<A>, usize)> {
    use cuprum::scipy::ndimage as nd;
    let (x, s) = (input.0.clone(), structure.map(|s| s.0.clone()));
    match output {
        Some(o) => {
            let o = o.0.clone();
            let n = py.detach(move || nd::label_into(&x, s.as_ref(), &o)).py()?;
            Ok((None, n))
        }
        None => {
            let (l, n) = py.detach(move || nd::label_with(&x, &nd::LabelOptions { structure: s.as_ref() })).py()?;
            Ok((Some(A(l)), n))
        }
    }
}

fn index_of(index: Option<&Bound<'_, PyAny>>) -> PyResult<cuprum::scipy::ndimage::measure::Index> {
    use cuprum::scipy::ndimage::measure::Index;
    let Some(i) = index.filter(|i| !i.is_none()) else { return Ok(Index::All) };
    if let Ok(a) = i.cast::<PyNdarray>() {
        return Index::from_array(&a.get().0).py();
    }
    if let Ok(v) = i.extract::<i64>() {
        return Ok(Index::Label(v));
    }
    if let Ok(f) = i.extract::<f64>() {
        return Ok(Index::Label(f as i64));
    }
    let arr = crate::convert::asarray(i.py(), i, None, Some(cuprum::Device::Cpu))?;
    Index::from_array(&arr).py()
}

/// The measurements by name (`sum_labels`, `mean`, `variance`, `standard_deviation`, `minimum`,
/// `maximum`, `minimum_position`, `maximum_position`, `center_of_mass`, `median`, `count`).
#[pyfunction]
#[pyo3(signature = (name, input, labels=None, index=None))]
pub fn measure(
    py: Python<'_>,
    name: &str,
    input: &A,
    labels: Option<&A>,
    index: Option<&Bound<'_, PyAny>>,
) -> PyResult<A> {
    use cuprum::scipy::ndimage as nd;
    let idx = index_of(index)?;
    let (x, l) = (input.0.clone(), labels.map(|l| l.0.clone()));
    let name = name.to_string();
    let r = py.detach(move || {
        let l = l.as_ref();
        match name.as_str() {
            "sum_labels" | "sum" => nd::sum_labels(&x, l, idx),
            "mean" => nd::mean(&x, l, idx),
            "variance" => nd::variance(&x, l, idx),
            "standard_deviation" => nd::standard_deviation(&x, l, idx),
            "minimum" => nd::minimum(&x, l, idx),
            "maximum" => nd::maximum(&x, l, idx),
            "minimum_position" => nd::minimum_position(&x, l, idx),
            "maximum_position" => nd::maximum_position(&x, l, idx),
            "center_of_mass" => nd::center_of_mass(&x, l, idx),
            "median" => nd::median(&x, l, idx),
            "count" => nd::count(&x, idx),
            _ => Err(cuprum::Error::Value(format!("no measurement {name}"))),
        }
    });
    Ok(A(r.py()?))
}

#[pyfunction]
#[pyo3(signature = (input, min, max, bins, labels=None, index=None))]
pub fn nd_histogram(
    py: Python<'_>,
    input: &A,
    min: f64,
    max: f64,
    bins: usize,
    labels: Option<&A>,
    index: Option<&Bound<'_, PyAny>>,
) -> PyResult<A> {
    let idx = index_of(index)?;
    let (x, l) = (input.0.clone(), labels.map(|l| l.0.clone()));
    Ok(A(py.detach(move || cuprum::scipy::ndimage::histogram(&x, min, max, bins, l.as_ref(), idx)).py()?))
}

#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn find_objects(py: Python<'_>, input: &A, max_label: usize) -> PyResult<Vec<Option<Vec<(usize, usize)>>>> {
    let x = input.0.clone();
    let r = py.detach(move || cuprum::scipy::ndimage::find_objects(&x, max_label)).py()?;
    Ok(r.into_iter().map(|o| o.map(|v| v.into_iter().map(|r| (r.start, r.end)).collect())).collect())
}

#[pyfunction]
pub fn generate_binary_structure(rank: usize, connectivity: usize) -> PyResult<A> {
    Ok(A(cuprum::scipy::ndimage::generate_binary_structure(rank, connectivity).py()?))
}

fn nd_mode(m: &str) -> PyResult<cuprum::scipy::ndimage::Mode> {
    m.parse().py()
}

/// The linear filters by name; `param`: sigmas (gaussian), sizes (uniform), weights (1-d), the
/// axis (sobel, prewitt, 1-d filters).
#[pyfunction]
#[pyo3(signature = (name, input, weights=None, param=None, axis=-1, mode="reflect", cval=0.0, origin=None, out=None, output=None, order=None, truncate=4.0, radius=None, axes=None))]
#[allow(clippy::too_many_arguments)]
pub fn nd_filter(
    py: Python<'_>,
    name: &str,
    input: &A,
    weights: Option<&A>,
    param: Option<Vec<f64>>,
    axis: isize,
    mode: &str,
    cval: f64,
    origin: Option<Vec<isize>>,
    out: Option<&A>,
    output: Option<&Bound<'_, PyAny>>,
    order: Option<Vec<usize>>,
    truncate: f64,
    radius: Option<Vec<usize>>,
    axes: Option<Vec<isize>>,
) -> PyResult<A> {
    use cuprum::scipy::ndimage as nd;
    let opts = nd::FilterOptions {
        mode: nd_mode(mode)?,
        cval,
        origin: origin.unwrap_or_default(),
        axes,
        output: match output.filter(|o| !o.is_none()) {
            Some(o) => Some(to_dtype(py, o)?),
            None => None,
        },
        out: out.map(|o| o.0.clone()),
        order: order.unwrap_or_default(),
        truncate,
        radius,
        ..nd::FilterOptions::default()
    };
    let x = input.0.clone();
    let w = weights.map(|w| w.0.clone());
    let p = param.unwrap_or_default();
    let name = name.to_string();
    let r = py.detach(move || {
        let weights = || w.clone().ok_or_else(|| cuprum::Error::Value("weights are needed".into()));
        match name.as_str() {
            "correlate" => nd::correlate_with(&x, &weights()?, &opts),
            "convolve" => nd::convolve_with(&x, &weights()?, &opts),
            "correlate1d" => nd::correlate1d_with(&x, &p, axis, &opts),
            "convolve1d" => nd::convolve1d_with(&x, &p, axis, &opts),
            "gaussian_filter" => nd::gaussian_filter_with(&x, &p, &opts),
            "gaussian_filter1d" => nd::gaussian_filter1d_with(&x, p.first().copied().unwrap_or(1.0), axis, &opts),
            "uniform_filter" => nd::uniform_filter_with(&x, &p.iter().map(|&v| v as usize).collect::<Vec<_>>(), &opts),
            "uniform_filter1d" => {
                nd::uniform_filter1d_with(&x, p.first().copied().unwrap_or(3.0) as usize, axis, &opts)
            }
            "sobel" => nd::sobel_with(&x, axis, &opts),
            "prewitt" => nd::prewitt_with(&x, axis, &opts),
            "laplace" => nd::laplace_with(&x, &opts),
            "gaussian_laplace" => nd::gaussian_laplace_with(&x, &p, &opts),
            "gaussian_gradient_magnitude" => nd::gaussian_gradient_magnitude_with(&x, &p, &opts),
            _ => Err(cuprum::Error::Value(format!("no filter {name}"))),
        }
    });
    Ok(A(r.py()?))
}

/// The rank filters by name (`median_filter`, `minimum_filter`, `maximum_filter`, `rank_filter`,
/// `percentile_filter`, `grey_erosion`, `grey_dilation`, the 1-d min/max filters).
#[pyfunction]
#[pyo3(signature = (name, input, size=None, footprint=None, structure=None, rank=0, percentile=0.0, axis=-1, mode="reflect", cval=0.0, origin=None, axes=None))]
#[allow(clippy::too_many_arguments)]
pub fn nd_rank(
    py: Python<'_>,
    name: &str,
    input: &A,
    size: Option<Vec<usize>>,
    footprint: Option<&A>,
    structure: Option<&A>,
    rank: i64,
    percentile: f64,
    axis: isize,
    mode: &str,
    cval: f64,
    origin: Option<Vec<isize>>,
    axes: Option<Vec<isize>>,
) -> PyResult<A> {
    use cuprum::scipy::ndimage as nd;
    let opts = nd::RankOptions { mode: nd_mode(mode)?, cval, origin: origin.unwrap_or_default(), axes };
    let x = input.0.clone();
    let (fp, st) = (footprint.map(|f| f.0.clone()), structure.map(|s| s.0.clone()));
    let name = name.to_string();
    let r = py.detach(move || {
        let sz = size.clone().unwrap_or_default();
        let window = || -> cuprum::Result<nd::Window<'_>> {
            match (&fp, &size) {
                (Some(f), _) => Ok(nd::Window::Footprint(f)),
                (None, Some(s)) => Ok(nd::Window::Size(s)),
                _ => Err(cuprum::Error::Value("footprint or size must be given".into())),
            }
        };
        match name.as_str() {
            "median_filter" => nd::median_filter_with(&x, window()?, &opts),
            "minimum_filter" => nd::minimum_filter_with(&x, window()?, &opts),
            "maximum_filter" => nd::maximum_filter_with(&x, window()?, &opts),
            "rank_filter" => nd::rank_filter_with(&x, rank, window()?, &opts),
            "percentile_filter" => nd::percentile_filter_with(&x, percentile, window()?, &opts),
            "minimum_filter1d" => nd::minimum_filter1d_with(&x, sz.first().copied().unwrap_or(3), axis, &opts),
            "maximum_filter1d" => nd::maximum_filter1d_with(&x, sz.first().copied().unwrap_or(3), axis, &opts),
            "grey_erosion" | "grey_dilation" => {
                let w = nd::GreyWindow { size: size.as_deref(), footprint: fp.as_ref(), structure: st.as_ref() };
                if name == "grey_erosion" {
                    nd::grey_erosion_with(&x, w, &opts)
                } else {
                    nd::grey_dilation_with(&x, w, &opts)
                }
            }
            _ => Err(cuprum::Error::Value(format!("no rank filter {name}"))),
        }
    });
    Ok(A(r.py()?))
}

/// Binary morphology by name (`binary_erosion`, `binary_dilation`, `binary_opening`,
/// `binary_closing`, `binary_fill_holes`).
#[pyfunction]
#[pyo3(signature = (name, input, structure=None, iterations=1, mask=None, border_value=false, origin=None))]
#[allow(clippy::too_many_arguments)]
pub fn nd_binary(
    py: Python<'_>,
    name: &str,
    input: &A,
    structure: Option<&A>,
    iterations: i64,
    mask: Option<&A>,
    border_value: bool,
    origin: Option<Vec<i64>>,
) -> PyResult<A> {
    use cuprum::scipy::ndimage as nd;
    let x = input.0.clone();
    let (st, mk) = (structure.map(|s| s.0.clone()), mask.map(|m| m.0.clone()));
    let name = name.to_string();
    let r = py.detach(move || {
        let o = origin.unwrap_or_default();
        if name == "binary_fill_holes" {
            return nd::binary_fill_holes_with(&x, &nd::FillHolesOptions { structure: st.as_ref(), origin: &o });
        }
        let opts = nd::BinaryOptions { structure: st.as_ref(), iterations, mask: mk.as_ref(), border_value, origin: o };
        match name.as_str() {
            "binary_erosion" => nd::binary_erosion_with(&x, &opts),
            "binary_dilation" => nd::binary_dilation_with(&x, &opts),
            "binary_opening" => nd::binary_opening_with(&x, &opts),
            "binary_closing" => nd::binary_closing_with(&x, &opts),
            _ => Err(cuprum::Error::Value(format!("no morphology function {name}"))),
        }
    });
    Ok(A(r.py()?))
}

#[pyfunction]
pub fn iterate_structure(structure: &A, iterations: i64) -> PyResult<A> {
    Ok(A(cuprum::scipy::ndimage::iterate_structure(&structure.0, iterations).py()?))
}
