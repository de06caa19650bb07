//! Files: every way cuprum reads or writes one lives here.
//!
//! | format | read | write |
//! |---|---|---|
//! | NumPy `.npy` ([`npy`]) | [`load_npy`] | [`save_npy`] |
//! | NumPy `.npz` ([`npz`]) | [`load_npz`] | [`save_npz`], [`save_npz_compressed`] |
//! | FITS images ([`fits`]) | [`read_fits`], [`read_fits_with`], [`read_fits_headers`] | [`write_fits`], [`write_fits_with`] |
//! | PNG pictures of 2-D arrays ([`image`]) | | [`imsave`] ([`colorize`] for the pixels alone) |
//!
//! Loading takes the [`Device`](crate::Device) the array is to live on; saving takes arrays
//! on any device (copied to the host for writing). Errors: a missing, unreadable, malformed
//! or truncated file is an [`Error::Io`] (Python's `OSError`, as NumPy and
//! astropy raise for a corrupt file); a bad argument a `ValueError`; nothing panics on bad
//! input.
//!
//! ```
//! use cuprum::{io, Device};
//! let dev = Device::default_device();
//! let a = cuprum::arange(6, &dev)?.astype(cuprum::DType::Float32)?;
//! let path = std::env::temp_dir().join("cuprum_io_mod_example.fits");
//! io::write_fits(&path, &a)?;
//! let b = io::read_fits(&path, &dev)?;
//! assert_eq!(b.to_vec::<f32>()?, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
//! # Ok::<(), cuprum::Error>(())
//! ```

mod colorbar;
pub mod fits;
pub mod image;
pub mod npy;
pub mod npz;

pub use fits::{
    read_fits, read_fits_headers, read_fits_with, write_fits, write_fits_with, FitsCard, FitsHdu, FitsHeader,
    FitsImage, FitsReadOptions, FitsValue,
};
pub use image::{colorize, colorize_with, imsave, imsave_with, Colormap, ImageOptions, Norm, Origin, Rgba8Image};
pub use npy::{load_npy, save_npy};
pub use npz::{load_npz, save_npz, save_npz_compressed, Npz};

use crate::core::error::Error;
use std::path::Path;

/// An [`Error::Io`] naming the file.
pub(crate) fn io_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io(format!("{}: {e}", path.display()))
}
