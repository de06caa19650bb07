//! NumPy's `.npz` archives: a zip file of `.npy` members, as `np.savez` (stored) and
//! `np.savez_compressed` (deflated) write them: [`load_npz`], [`save_npz`],
//! [`save_npz_compressed`].

use crate::array::Array;
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use crate::io::io_err;
use crate::io::npy::{npy_from_bytes, npy_to_bytes};
use std::io::{Cursor, Read, Write};
use std::path::Path;

/// The arrays of an `.npz` file, in the archive's order, named as NumPy's `NpzFile.files`
/// (member names without `.npy`).
///
/// ```
/// use cuprum::{io, Device};
/// let dev = Device::default_device();
/// let x = cuprum::arange(3, &dev)?;
/// let y = cuprum::linspace(0.0, 1.0, 5, cuprum::DType::Float32, &dev)?;
/// let path = std::env::temp_dir().join("cuprum_npz_example.npz");
/// io::save_npz(&path, &[("x", &x), ("y", &y)])?;   // np.savez(path, x=x, y=y)
/// let npz = io::load_npz(&path, &dev)?;
/// assert_eq!(npz.names(), vec!["x", "y"]);
/// assert_eq!(npz.get("x").unwrap().to_vec::<i64>()?, vec![0, 1, 2]);
/// for (name, a) in &npz {
///     println!("{name}: {:?} {}", a.shape(), a.dtype());
/// }
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Npz {
    entries: Vec<(String, Array)>,
}

impl Npz {
    /// The names in the archive's order.
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// The array called `name` (`npz[name]`).
    pub fn get(&self, name: &str) -> Option<&Array> {
        self.entries.iter().find(|(n, _)| n == name).map(|(_, a)| a)
    }

    /// The number of arrays.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the archive holds no array.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `(name, array)` pairs in the archive's order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Array)> {
        self.entries.iter().map(|(n, a)| (n.as_str(), a))
    }

    /// The `(name, array)` pairs.
    pub fn into_vec(self) -> Vec<(String, Array)> {
        self.entries
    }
}

impl<'a> IntoIterator for &'a Npz {
    type Item = (&'a str, &'a Array);
    type IntoIter =
        std::iter::Map<std::slice::Iter<'a, (String, Array)>, fn(&'a (String, Array)) -> (&'a str, &'a Array)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(n, a)| (n.as_str(), a))
    }
}

/// Reads an `.npz` file (stored or deflated members) onto `device`. Members that are not
/// `.npy` files (NumPy hands out their raw bytes) are left out; a corrupt archive or member is
/// an [`Error::Io`].
pub fn load_npz(path: impl AsRef<Path>, device: &Device) -> Result<Npz> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| io_err(path, e))?;
    npz_from_bytes(&bytes, device).map_err(|e| match e {
        Error::Io(m) => io_err(path, m),
        e => e,
    })
}

/// [`load_npz`] on the bytes of an archive held in memory.
///
/// ```
/// use cuprum::io::npz::{npz_from_bytes, npz_to_bytes};
/// use cuprum::Device;
/// let a = cuprum::arange(3, &Device::Cpu)?;
/// let bytes = npz_to_bytes(&[("a", &a)], true)?;     // as np.savez_compressed
/// assert_eq!(npz_from_bytes(&bytes, &Device::Cpu)?.names(), vec!["a"]);
/// assert_eq!(npz_from_bytes(b"not a zip", &Device::Cpu).unwrap_err().kind(), cuprum::ErrorKind::OSError);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn npz_from_bytes(bytes: &[u8], device: &Device) -> Result<Npz> {
    let bad = |e: zip::result::ZipError| Error::Io(format!("invalid .npz archive: {e}"));
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(bad)?;
    let mut entries = Vec::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).map_err(bad)?;
        if f.is_dir() {
            continue;
        }
        let name = f.name().map_err(bad)?.to_string();
        let Some(stem) = name.strip_suffix(".npy") else { continue };
        // The declared size only guides the first allocation (a corrupt one cannot make it huge).
        let mut data = Vec::with_capacity(f.size().min(1 << 26) as usize);
        f.read_to_end(&mut data).map_err(|e| Error::Io(format!("invalid .npz archive: member {name}: {e}")))?;
        let a = npy_from_bytes(&data, device).map_err(|e| match e {
            Error::Io(m) => Error::Io(format!("member {name}: {m}")),
            e => e,
        })?;
        entries.push((stem.to_string(), a));
    }
    Ok(Npz { entries })
}

/// Writes arrays (from any device) as an `.npz` file of stored members, as `np.savez(path,
/// name=array, ...)`: member `name.npy` each. Names must be distinct and not empty.
///
/// ```
/// use cuprum::{io, Device};
/// let a = cuprum::arange(4, &Device::Cpu)?;
/// let path = std::env::temp_dir().join("cuprum_save_npz_example.npz");
/// io::save_npz(&path, &[("a", &a)])?;
/// assert_eq!(io::load_npz(&path, &Device::Cpu)?.get("a").unwrap().to_vec::<i64>()?, vec![0, 1, 2, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn save_npz(path: impl AsRef<Path>, arrays: &[(&str, &Array)]) -> Result<()> {
    write_npz(path.as_ref(), arrays, false)
}

/// [`save_npz`] with deflated members, as `np.savez_compressed`.
///
/// ```
/// use cuprum::{io, Device, DType};
/// let z = cuprum::zeros(&[100, 100], DType::Float64, &Device::Cpu)?;
/// let path = std::env::temp_dir().join("cuprum_save_npz_compressed_example.npz");
/// io::save_npz_compressed(&path, &[("z", &z)])?;
/// assert!(std::fs::metadata(&path).map_err(|e| cuprum::Error::Io(e.to_string()))?.len() < 10_000);
/// assert_eq!(io::load_npz(&path, &Device::Cpu)?.get("z").unwrap().shape(), &[100, 100]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn save_npz_compressed(path: impl AsRef<Path>, arrays: &[(&str, &Array)]) -> Result<()> {
    write_npz(path.as_ref(), arrays, true)
}

/// The bytes of the `.npz` archive [`save_npz`] (or, `compressed`, [`save_npz_compressed`])
/// writes (an example at [`npz_from_bytes`]).
pub fn npz_to_bytes(arrays: &[(&str, &Array)], compressed: bool) -> Result<Vec<u8>> {
    for (i, (name, _)) in arrays.iter().enumerate() {
        if name.is_empty() {
            return Err(Error::Value("an .npz member needs a name".into()));
        }
        if arrays[..i].iter().any(|(n, _)| n == name) {
            return Err(Error::Value(format!("the name {name:?} is given more than once")));
        }
    }
    let bad = |e: zip::result::ZipError| Error::Io(format!("writing an .npz archive: {e}"));
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, a) in arrays {
        let npy = npy_to_bytes(a)?;
        let method = if compressed { zip::CompressionMethod::Deflated } else { zip::CompressionMethod::Stored };
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(method)
            .large_file(npy.len() as u64 >= u32::MAX as u64);
        zip.start_file(format!("{name}.npy"), options).map_err(bad)?;
        zip.write_all(&npy).map_err(|e| Error::Io(format!("writing an .npz archive: {e}")))?;
    }
    Ok(zip.finish().map_err(bad)?.into_inner())
}

fn write_npz(path: &Path, arrays: &[(&str, &Array)], compressed: bool) -> Result<()> {
    let bytes = npz_to_bytes(arrays, compressed)?;
    std::fs::write(path, bytes).map_err(|e| io_err(path, e))
}
