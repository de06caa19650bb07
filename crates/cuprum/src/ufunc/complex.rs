//! The complex parts of an array: `real`, `imag` (views of complex arrays, as NumPy's),
//! `conj`, `angle`, and building a complex array from its parts.

use crate::array::Array;
use crate::core::error::Result;

impl Array {
    /// NumPy's `a.real`: for a complex array a view of the real parts (writes through it change
    /// the array), for a real array the array itself (a view).
    ///
    /// ```
    /// use cuprum::{Complex, Device};
    /// let z = cuprum::from_vec(vec![Complex::new(1.0f64, 2.0), Complex::new(3.0, -4.0)], &Device::Cpu)?;
    /// assert_eq!(z.real().to_vec::<f64>()?, vec![1.0, 3.0]);
    /// assert_eq!(z.imag()?.to_vec::<f64>()?, vec![2.0, -4.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn real(&self) -> Array {
        let mut v = self.view();
        v.dtype = self.dtype.real_dtype();
        v
    }

    /// NumPy's `a.imag`: for a complex array a view of the imaginary parts; for a real array
    /// zeros of its dtype (NumPy's is a read-only array of zeros; here a new one).
    pub fn imag(&self) -> Result<Array> {
        if !self.dtype.is_complex() {
            return crate::zeros(&self.shape, self.dtype, &self.device());
        }
        let mut v = self.view();
        v.dtype = self.dtype.real_dtype();
        v.offset += v.dtype.itemsize();
        Ok(v)
    }

    /// NumPy's `conj` (= `conjugate`): the complex conjugate; real arrays are returned as they
    /// are (a copy).
    pub fn conj(&self) -> Result<Array> {
        crate::conjugate(self)
    }

    /// NumPy's `angle(z)`: the argument of each element in radians, `arctan2(imag, real)`,
    /// as a float of the parts' precision (float64 for integers).
    pub fn angle(&self) -> Result<Array> {
        self.angle_with(&AngleOptions::default())
    }

    /// NumPy's `angle(z, deg)`: [`angle`](Self::angle), in degrees with `deg`.
    ///
    /// ```
    /// let z = cuprum::from_vec(vec![num_complex::Complex::new(0.0, 2.0)], &cuprum::Device::Cpu)?;
    /// assert_eq!(z.angle_with(&cuprum::AngleOptions { deg: true })?.to_vec::<f64>()?, vec![90.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn angle_with(&self, opts: &AngleOptions) -> Result<Array> {
        let deg = opts.deg;
        // As NumPy: arctan2(z.imag, z.real) for complex z, arctan2(0, x) (a weak 0) otherwise.
        let a = if self.dtype.is_complex() {
            crate::arctan2(&self.imag()?, self.real())?
        } else {
            crate::arctan2(0i64, self)?
        };
        if deg {
            crate::multiply(&a, 180.0 / std::f64::consts::PI)
        } else {
            Ok(a)
        }
    }
}

/// NumPy's `conj`.
pub fn conj(x: &Array) -> Result<Array> {
    crate::conjugate(x)
}

/// NumPy's `real(x)`.
pub fn real(x: &Array) -> Array {
    x.real()
}

/// NumPy's `imag(x)`.
pub fn imag(x: &Array) -> Result<Array> {
    x.imag()
}

/// [`angle`]'s keyword.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AngleOptions {
    /// Degrees instead of radians (NumPy's `deg=False`).
    pub deg: bool,
}

/// NumPy's `angle(z)` (radians).
pub fn angle(x: &Array) -> Result<Array> {
    x.angle()
}

/// NumPy's `angle(z, deg)`.
pub fn angle_with(x: &Array, opts: &AngleOptions) -> Result<Array> {
    x.angle_with(opts)
}

/// A complex array `re + 1j*im` (both real, of one shape and device), of the complex dtype
/// that holds their common dtype (`np.promote_types(dtype, complex64)`).
pub(crate) fn from_parts(re: &Array, im: &Array) -> Result<Array> {
    let dt = crate::promote_types(re.dtype(), im.dtype()).to_complex();
    let out = Array::alloc(re.shape(), dt, re.device(), false)?;
    let mut r = out.real();
    r.assign(re)?;
    let mut i = out.imag()?;
    i.assign(im)?;
    Ok(out)
}
