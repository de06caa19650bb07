//! FITS images: [`read_fits`], [`read_fits_with`], [`read_fits_headers`], [`write_fits`],
//! [`write_fits_with`], with astropy's (`astropy.io.fits`) results.
//!
//! A FITS file is a sequence of HDUs (header and data units): a header of 80-character ASCII
//! cards in 2880-byte blocks, ended by an `END` card, then the data, big-endian, padded to a
//! whole block. The first HDU is the primary (`SIMPLE = T`); extensions follow (`XTENSION =
//! 'IMAGE'`, `'BINTABLE'`, `'TABLE'`, ...). An image of `NAXIS = n` axes has the NumPy shape
//! `(NAXISn, ..., NAXIS1)`: `NAXIS1` is the fastest axis, as astropy gives it.
//!
//! **Which HDU.** [`read_fits`] reads the primary HDU if it has data, otherwise the first
//! image extension that has data (a primary without data and image extensions is the common
//! layout of multi-extension files). astropy's `fits.getdata` falls back to HDU 1 only,
//! whatever it is (it returns a table's rows if HDU 1 is a table); cuprum skips tables, since it
//! reads images only. [`FitsReadOptions::hdu`] picks an HDU by its 0-based index in the file
//! (tables and other extensions count, as in astropy's `hdul[n]`); a table HDU there is a
//! `NotImplementedError`, an HDU without data or an index past the last HDU an `IndexError`,
//! as `fits.getdata(path, ext=n)` raises.
//!
//! **Data types** (with [`FitsReadOptions::scale`], the default, as `fits.getdata`):
//!
//! | BITPIX | header | result |
//! |---|---|---|
//! | 8 / 16 / 32 / 64 | no BSCALE, BZERO or BLANK (or BSCALE = 1, BZERO = 0) | uint8 / int16 / int32 / int64 |
//! | 8 | BSCALE = 1, BZERO = -128 | int8 |
//! | 16 / 32 / 64 | BSCALE = 1, BZERO = 2^15 / 2^31 / 2^63 | uint16 / uint32 / uint64 |
//! | 8, 16 | any other BSCALE/BZERO, or BLANK | float32: `raw * BSCALE + BZERO`, BLANK pixels NaN |
//! | 32, 64 | any other BSCALE/BZERO, or BLANK | float64: `raw * BSCALE + BZERO`, BLANK pixels NaN |
//! | -32 / -64 | | float32 / float64 (scaled in that precision when BSCALE/BZERO are given; BLANK ignored) |
//!
//! As in astropy, a BLANK keyword alone (no scaling) still makes an integer image float with
//! NaN at the blank pixels, and for the unsigned and int8 conventions BLANK is not applied
//! (an integer has no NaN: the user handles blanks). The arithmetic is astropy's: the raw
//! values converted to the result dtype, multiplied by BSCALE and then BZERO added, each
//! rounded to the result dtype. Two deliberate differences from astropy 8: `BLANK = 0` makes
//! the zero pixels NaN (astropy skips them because it tests `if self._blank:`), and BLANK
//! with the int8 convention is ignored (astropy raises `ValueError: cannot convert float NaN
//! to integer`). With `scale: false` the raw values come back in the BITPIX dtype, as with
//! `do_not_scale_image_data=True`.
//!
//! The header returned is the file's, card for card (astropy's `hdu.header` after reading
//! scaled data drops BSCALE/BZERO and changes BITPIX; this one does not).
//!
//! **Writing** ([`write_fits`], [`write_fits_with`]) follows astropy's `PrimaryHDU(data)` /
//! `ImageHDU(data)`: uint8 → BITPIX 8; int16/32/64 → 16/32/64; uint16/32/64 → 16/32/64 with
//! BZERO = 2^(n-1) (BSCALE = 1); int8 → BITPIX 8 with BZERO = -128; float32/float64 → -32/-64.
//! Where astropy refuses (`KeyError` for bool and float16), cuprum writes bool as uint8 (0/1,
//! BITPIX 8) and float16 as float32 (exactly). A 0-d array is a `ValueError` (FITS has no
//! 0-d image: `NAXIS = 0` means no data).
//!
//! **Errors.** A file that is not FITS, a header without `END`, a bad or missing mandatory
//! card (BITPIX, NAXIS, NAXISn), sizes that overflow, or a file that ends inside a header or
//! inside the data is an [`Error::Io`] (`OSError`, as astropy raises for a corrupt file)
//! naming the file and the problem; nothing panics (the tests truncate and corrupt files at
//! thousands of places). Data whose last block lacks its padding is read, as astropy does.
//!
//! **Why not the `fitsrs` crate.** `fitsrs` 0.4 reads headers and raw pixels, but leaves
//! BSCALE/BZERO/BLANK and astropy's dtype rules to the caller (the part that needs care), and
//! brings serde, futures, async-trait and a WCS crate with it; the format itself (2880-byte
//! blocks of 80-character cards) takes a few hundred lines here, with every size checked.

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::io::io_err;
use std::fmt;
use std::path::Path;

const BLOCK: usize = 2880;
const CARD: usize = 80;

// ------------------------------------------------------------------ header

/// The value of a header card.
#[derive(Debug, Clone, PartialEq)]
pub enum FitsValue {
    /// A logical: `T` or `F`.
    Bool(bool),
    /// An integer (FITS integers may exceed `i64`: BZERO = 2^63 for uint64 data).
    Int(i128),
    /// A real number (`1.5`, `1.0E-3`, `2.5D2`).
    Float(f64),
    /// A character string, without its quotes or its trailing blanks (`''` is a quote).
    Str(String),
    /// A value cuprum does not parse (a complex number, or a malformed value), as written.
    Other(String),
}

impl From<bool> for FitsValue {
    fn from(v: bool) -> Self {
        FitsValue::Bool(v)
    }
}
impl From<i64> for FitsValue {
    fn from(v: i64) -> Self {
        FitsValue::Int(v as i128)
    }
}
impl From<i32> for FitsValue {
    fn from(v: i32) -> Self {
        FitsValue::Int(v as i128)
    }
}
impl From<f64> for FitsValue {
    fn from(v: f64) -> Self {
        FitsValue::Float(v)
    }
}
impl From<&str> for FitsValue {
    fn from(v: &str) -> Self {
        FitsValue::Str(v.to_string())
    }
}
impl From<String> for FitsValue {
    fn from(v: String) -> Self {
        FitsValue::Str(v)
    }
}

impl fmt::Display for FitsValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FitsValue::Bool(b) => f.write_str(if *b { "T" } else { "F" }),
            FitsValue::Int(i) => write!(f, "{i}"),
            FitsValue::Float(x) => f.write_str(&float_text(*x)),
            FitsValue::Str(s) => write!(f, "'{}'", s.replace('\'', "''")),
            FitsValue::Other(s) => f.write_str(s),
        }
    }
}

/// One 80-character header card: a keyword, an optional value and an optional comment.
/// Commentary cards (`COMMENT`, `HISTORY`, blank keywords) have no value and their text as the
/// comment.
#[derive(Debug, Clone, PartialEq)]
pub struct FitsCard {
    /// The keyword, upper case, without trailing blanks (at most 8 characters).
    pub keyword: String,
    /// The value (`None` for commentary cards and undefined values).
    pub value: Option<FitsValue>,
    /// The comment after `/`, or a commentary card's text (empty when absent).
    pub comment: String,
}

impl FitsCard {
    /// A card `keyword = value`.
    ///
    /// ```
    /// use cuprum::io::{FitsCard, FitsValue};
    /// let c = FitsCard::new("OBJECT", "Sgr A*").with_comment("the target");
    /// assert_eq!(c.value, Some(FitsValue::Str("Sgr A*".into())));
    /// ```
    pub fn new(keyword: &str, value: impl Into<FitsValue>) -> FitsCard {
        FitsCard { keyword: keyword.to_ascii_uppercase(), value: Some(value.into()), comment: String::new() }
    }

    /// A commentary card (`COMMENT`, `HISTORY`): a keyword and free text.
    ///
    /// ```
    /// let c = cuprum::io::FitsCard::commentary("HISTORY", "written by cuprum");
    /// assert!(c.value.is_none());
    /// ```
    pub fn commentary(keyword: &str, text: &str) -> FitsCard {
        FitsCard { keyword: keyword.to_ascii_uppercase(), value: None, comment: text.to_string() }
    }

    /// The card with a comment.
    ///
    /// ```
    /// let c = cuprum::io::FitsCard::new("EXPTIME", 30.0).with_comment("seconds");
    /// assert_eq!(c.comment, "seconds");
    /// ```
    pub fn with_comment(mut self, comment: &str) -> FitsCard {
        self.comment = comment.to_string();
        self
    }

    /// Parses one 80-byte card (lenient, as astropy: a value it cannot parse is kept as text).
    fn parse(raw: &[u8]) -> FitsCard {
        let text: String = raw.iter().map(|&b| if (32..127).contains(&b) { b as char } else { '?' }).collect();
        let keyword = text[..8].trim_end().to_string();
        let commentary = matches!(keyword.as_str(), "COMMENT" | "HISTORY" | "" | "CONTINUE");
        if commentary || &text[8..10] != "= " {
            return FitsCard { keyword, value: None, comment: text[8..].trim_end().to_string() };
        }
        let rest = text[10..].trim_start();
        let (value, comment) = if let Some(s) = rest.strip_prefix('\'') {
            // A string: up to the first quote not doubled.
            let b = s.as_bytes();
            let mut out = String::new();
            let mut i = 0;
            let mut closed = None;
            while i < b.len() {
                if b[i] == b'\'' {
                    if b.get(i + 1) == Some(&b'\'') {
                        out.push('\'');
                        i += 2;
                        continue;
                    }
                    closed = Some(i);
                    break;
                }
                out.push(b[i] as char);
                i += 1;
            }
            match closed {
                Some(end) => {
                    let after = &s[end + 1..];
                    let comment = after.split_once('/').map(|(_, c)| c.trim().to_string()).unwrap_or_default();
                    (Some(FitsValue::Str(out.trim_end().to_string())), comment)
                }
                None => (Some(FitsValue::Other(rest.trim_end().to_string())), String::new()),
            }
        } else {
            let (v, c) = match rest.split_once('/') {
                Some((v, c)) => (v.trim(), c.trim().to_string()),
                None => (rest.trim(), String::new()),
            };
            let value = if v.is_empty() {
                None
            } else if v == "T" {
                Some(FitsValue::Bool(true))
            } else if v == "F" {
                Some(FitsValue::Bool(false))
            } else if let Ok(i) = v.strip_prefix('+').unwrap_or(v).parse::<i128>() {
                Some(FitsValue::Int(i))
            } else if let Some(x) = parse_real(v) {
                Some(FitsValue::Float(x))
            } else {
                Some(FitsValue::Other(v.to_string()))
            };
            (value, c)
        };
        FitsCard { keyword, value, comment }
    }

    /// The card's 80 bytes (checked: keyword, text and value must fit and be printable ASCII).
    fn to_bytes(&self) -> Result<[u8; CARD]> {
        let bad = |why: String| Error::Value(format!("FITS card {:?}: {why}", self.keyword));
        let key = &self.keyword;
        if key.len() > 8 || !key.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        {
            return Err(bad("a keyword has at most 8 characters of A-Z, 0-9, '-' and '_'".into()));
        }
        if !self.comment.bytes().all(|b| (32..127).contains(&b)) {
            return Err(bad("the comment must be printable ASCII".into()));
        }
        let mut s = format!("{key:<8}");
        match &self.value {
            None => {
                if !matches!(key.as_str(), "COMMENT" | "HISTORY" | "") {
                    s.push_str("= ");
                    s.push_str(&" ".repeat(20));
                    if !self.comment.is_empty() {
                        s.push_str(" / ");
                        s.push_str(&self.comment);
                    }
                } else {
                    s.push_str(&self.comment);
                }
            }
            Some(v) => {
                s.push_str("= ");
                let text = match v {
                    FitsValue::Str(t) => {
                        if !t.bytes().all(|b| (32..127).contains(&b)) {
                            return Err(bad("a string value must be printable ASCII".into()));
                        }
                        let q = t.replace('\'', "''");
                        format!("'{q:<8}'")
                    }
                    FitsValue::Float(x) if !x.is_finite() => {
                        return Err(bad(format!("FITS has no value for {x}")));
                    }
                    other => format!("{:>20}", other.to_string()),
                };
                s.push_str(&text);
                if !self.comment.is_empty() {
                    s.push_str(" / ");
                    s.push_str(&self.comment);
                }
            }
        }
        if s.len() > CARD {
            return Err(bad(format!("{} characters do not fit an 80-character card", s.len())));
        }
        let mut out = [b' '; CARD];
        out[..s.len()].copy_from_slice(s.as_bytes());
        Ok(out)
    }
}

/// A FITS real: `1.5`, `-1E10`, `2.5D-3` (Fortran's `D` exponent).
fn parse_real(v: &str) -> Option<f64> {
    let t = v.replace(['D', 'd'], "E");
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'E' | b'e' | b'+' | b'-')) {
        return None;
    }
    t.parse::<f64>().ok()
}

/// A float as FITS text: Rust's shortest round-trip digits with an upper-case exponent, always
/// with a `.` or an exponent (so that it reads back as a real).
fn float_text(x: f64) -> String {
    let s = format!("{x:?}").replace('e', "E");
    if s.contains(['.', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

/// The cards of one HDU's header, in file order (`END` not included).
///
/// ```
/// use cuprum::io::{FitsCard, FitsHeader};
/// let mut h = FitsHeader::new();
/// h.push(FitsCard::new("EXPTIME", 30.0));
/// h.push(FitsCard::new("OBJECT", "M31"));
/// assert_eq!(h.get_f64("exptime"), Some(30.0));
/// assert_eq!(h.get_str("OBJECT"), Some("M31"));
/// assert_eq!(h.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FitsHeader {
    cards: Vec<FitsCard>,
}

impl FitsHeader {
    /// An empty header.
    pub fn new() -> FitsHeader {
        FitsHeader::default()
    }

    /// Appends a card.
    pub fn push(&mut self, card: FitsCard) {
        self.cards.push(card);
    }

    /// The cards in file order.
    pub fn cards(&self) -> &[FitsCard] {
        &self.cards
    }

    /// The number of cards.
    pub fn len(&self) -> usize {
        self.cards.len()
    }

    /// Whether the header has no card.
    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }

    /// The cards in file order.
    pub fn iter(&self) -> std::slice::Iter<'_, FitsCard> {
        self.cards.iter()
    }

    /// The first card with `keyword` (case-insensitive, as astropy's `header[key]`).
    pub fn card(&self, keyword: &str) -> Option<&FitsCard> {
        let k = keyword.to_ascii_uppercase();
        self.cards.iter().find(|c| c.keyword == k)
    }

    /// The value of the first card with `keyword`.
    pub fn get(&self, keyword: &str) -> Option<&FitsValue> {
        self.card(keyword).and_then(|c| c.value.as_ref())
    }

    /// Whether a card has `keyword`.
    pub fn contains(&self, keyword: &str) -> bool {
        self.card(keyword).is_some()
    }

    /// A string value.
    pub fn get_str(&self, keyword: &str) -> Option<&str> {
        match self.get(keyword) {
            Some(FitsValue::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// A number as `f64` (an integer or a real).
    pub fn get_f64(&self, keyword: &str) -> Option<f64> {
        match self.get(keyword) {
            Some(FitsValue::Float(x)) => Some(*x),
            Some(FitsValue::Int(i)) => Some(*i as f64),
            _ => None,
        }
    }

    /// An integer value that fits `i64`.
    pub fn get_i64(&self, keyword: &str) -> Option<i64> {
        match self.get(keyword) {
            Some(FitsValue::Int(i)) => i64::try_from(*i).ok(),
            _ => None,
        }
    }

    /// A logical value.
    pub fn get_bool(&self, keyword: &str) -> Option<bool> {
        match self.get(keyword) {
            Some(FitsValue::Bool(b)) => Some(*b),
            _ => None,
        }
    }
}

impl<'a> IntoIterator for &'a FitsHeader {
    type Item = &'a FitsCard;
    type IntoIter = std::slice::Iter<'a, FitsCard>;
    fn into_iter(self) -> Self::IntoIter {
        self.cards.iter()
    }
}

// ------------------------------------------------------------------ the HDU list

/// What an HDU holds.
#[derive(Debug, Clone, PartialEq)]
enum HduKind {
    /// The primary HDU or an IMAGE extension: `shape` in NumPy's order.
    Image { bitpix: i64, shape: Vec<usize> },
    /// A random-groups primary, a table or another extension (its XTENSION value).
    Other(String),
}

#[derive(Debug, Clone)]
struct Hdu {
    header: FitsHeader,
    kind: HduKind,
    data_start: usize,
    data_len: usize,
}

impl Hdu {
    fn has_data(&self) -> bool {
        matches!(&self.kind, HduKind::Image { shape, .. } if !shape.is_empty() && shape.iter().all(|&d| d > 0))
    }
}

/// Walks the HDUs of a FITS file held in memory.
struct HduIter<'a> {
    bytes: &'a [u8],
    pos: usize,
    index: usize,
    done: bool,
    /// Where the previous HDU's data ends (without its padding).
    data_end: usize,
}

fn corrupt(msg: impl Into<String>) -> Error {
    Error::Io(format!("invalid FITS file: {}", msg.into()))
}

impl<'a> HduIter<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        HduIter { bytes, pos: 0, index: 0, done: false, data_end: 0 }
    }

    /// The next HDU; `Ok(None)` after the last one. A primary must be there; after it, bytes
    /// that do not start an `XTENSION` card end the list (astropy ignores such trailing bytes
    /// with a warning).
    fn next_hdu(&mut self) -> Result<Option<Hdu>> {
        if self.done {
            return Ok(None);
        }
        let i = self.index;
        if self.data_end > self.bytes.len() {
            return Err(corrupt(format!(
                "the file ends inside the data of HDU {}: {} bytes short",
                i - 1,
                self.data_end - self.bytes.len()
            )));
        }
        let rest = &self.bytes[self.pos.min(self.bytes.len())..];
        // After the last HDU: nothing, or bytes that cannot begin an XTENSION card (a file cut
        // inside the first 8 bytes of one still counts as a truncated extension).
        let starts_ext = if rest.len() >= 8 { &rest[..8] == b"XTENSION" } else { b"XTENSION".starts_with(rest) };
        if i > 0 && (rest.is_empty() || !starts_ext) {
            self.done = true;
            return Ok(None);
        }
        if i == 0 {
            if rest.is_empty() {
                return Err(corrupt("the file is empty"));
            }
            if rest.len() < 8 || &rest[..8] != b"SIMPLE  " {
                return Err(corrupt("no SIMPLE card at the start: this is not a FITS file"));
            }
        }
        // The header: cards up to END, in whole blocks.
        let mut header = FitsHeader::new();
        let mut off = 0usize;
        let end_at = loop {
            if off + BLOCK > rest.len() {
                return Err(corrupt(format!(
                    "the file ends inside the header of HDU {i} (no END card in its {} bytes)",
                    rest.len()
                )));
            }
            let block = &rest[off..off + BLOCK];
            let mut found = None;
            for (k, raw) in block.chunks_exact(CARD).enumerate() {
                if &raw[..8] == b"END     " {
                    found = Some(k);
                    break;
                }
                header.push(FitsCard::parse(raw));
            }
            off += BLOCK;
            if found.is_some() {
                break off;
            }
            if header.len() > 100_000 {
                return Err(corrupt(format!("no END card in the first {} cards of HDU {i}", header.len())));
            }
        };
        // The mandatory cards, in order.
        let cards = header.cards();
        let first = if i == 0 { "SIMPLE" } else { "XTENSION" };
        if cards.first().map(|c| c.keyword.as_str()) != Some(first) {
            return Err(corrupt(format!("HDU {i} does not start with {first}")));
        }
        let xtension = if i == 0 {
            if header.get_bool("SIMPLE") != Some(true) {
                return Err(corrupt("SIMPLE is not T: not a standard FITS file"));
            }
            None
        } else {
            Some(
                header
                    .get_str("XTENSION")
                    .ok_or_else(|| corrupt(format!("HDU {i}: XTENSION is not a string")))?
                    .to_string(),
            )
        };
        let int_card = |pos: usize, key: &str| -> Result<i64> {
            let c = header.cards().get(pos).filter(|c| c.keyword == key);
            match c.and_then(|c| c.value.as_ref()) {
                Some(FitsValue::Int(v)) => {
                    i64::try_from(*v).map_err(|_| corrupt(format!("HDU {i}: {key} = {v} is out of range")))
                }
                Some(v) => Err(corrupt(format!("HDU {i}: {key} = {v} is not an integer"))),
                None => Err(corrupt(format!("HDU {i}: card {} must be {key}", pos + 1))),
            }
        };
        let bitpix = int_card(1, "BITPIX")?;
        if ![8, 16, 32, 64, -32, -64].contains(&bitpix) {
            return Err(corrupt(format!("HDU {i}: BITPIX = {bitpix} (must be 8, 16, 32, 64, -32 or -64)")));
        }
        let naxis = int_card(2, "NAXIS")?;
        if !(0..=999).contains(&naxis) {
            return Err(corrupt(format!("HDU {i}: NAXIS = {naxis} (must be 0 to 999)")));
        }
        let mut axes = Vec::with_capacity(naxis as usize);
        for n in 1..=naxis as usize {
            let v = int_card(2 + n, &format!("NAXIS{n}"))?;
            if v < 0 {
                return Err(corrupt(format!("HDU {i}: NAXIS{n} = {v} is negative")));
            }
            axes.push(v as u64);
        }
        let opt_int = |key: &str, default: i64| -> Result<i64> {
            match header.get(key) {
                None => Ok(default),
                Some(FitsValue::Int(v)) => {
                    i64::try_from(*v).map_err(|_| corrupt(format!("HDU {i}: {key} = {v} is out of range")))
                }
                Some(v) => Err(corrupt(format!("HDU {i}: {key} = {v} is not an integer"))),
            }
        };
        let groups = i == 0 && naxis >= 1 && axes[0] == 0 && header.get_bool("GROUPS") == Some(true);
        let (pcount, gcount) = if i > 0 || groups { (opt_int("PCOUNT", 0)?, opt_int("GCOUNT", 1)?) } else { (0, 1) };
        if pcount < 0 || gcount < 0 {
            return Err(corrupt(format!("HDU {i}: PCOUNT = {pcount}, GCOUNT = {gcount} must not be negative")));
        }
        // Data size in bits: |BITPIX| * GCOUNT * (PCOUNT + NAXIS1 * ... * NAXISn), checked.
        let overflow = || corrupt(format!("HDU {i}: the data size overflows"));
        let counted = if groups { &axes[1..] } else { &axes[..] };
        let mut n: u64 = if naxis == 0 { 0 } else { 1 };
        for &a in counted {
            n = n.checked_mul(a).ok_or_else(overflow)?;
        }
        let bits = n
            .checked_add(pcount as u64)
            .and_then(|v| v.checked_mul(gcount as u64))
            .and_then(|v| v.checked_mul(bitpix.unsigned_abs()))
            .ok_or_else(overflow)?;
        let data_len = usize::try_from(bits / 8).map_err(|_| overflow())?;
        let data_start = self.pos.checked_add(end_at).ok_or_else(overflow)?;
        let padded = data_len.checked_add(BLOCK - 1).ok_or_else(overflow)? / BLOCK * BLOCK;
        let kind = match xtension.as_deref() {
            None if !groups => HduKind::Image { bitpix, shape: axes.iter().rev().map(|&a| a as usize).collect() },
            None => HduKind::Other("random groups".into()),
            Some("IMAGE") => HduKind::Image { bitpix, shape: axes.iter().rev().map(|&a| a as usize).collect() },
            Some(x) => HduKind::Other(x.to_string()),
        };
        if let HduKind::Image { shape, .. } = &kind {
            if crate::core::layout::checked_nbytes(shape, 1).is_err() {
                return Err(overflow());
            }
        }
        self.pos = data_start.checked_add(padded).ok_or_else(overflow)?;
        self.data_end = data_start.checked_add(data_len).ok_or_else(overflow)?;
        self.index += 1;
        Ok(Some(Hdu { header, kind, data_start, data_len }))
    }
}

// ------------------------------------------------------------------ reading

/// Options of [`read_fits_with`].
#[derive(Debug, Clone, PartialEq)]
pub struct FitsReadOptions {
    /// The HDU to read, by its 0-based index in the file (tables count); `None`: the primary
    /// HDU if it has data, else the first image extension with data (the module docs).
    pub hdu: Option<usize>,
    /// Apply BSCALE/BZERO and BLANK as `fits.getdata` does (default `true`); `false` gives the
    /// raw values in BITPIX's dtype (`do_not_scale_image_data=True`).
    pub scale: bool,
    /// The device of the result (default the CPU).
    pub device: Device,
}

impl Default for FitsReadOptions {
    fn default() -> Self {
        FitsReadOptions { hdu: None, scale: true, device: Device::Cpu }
    }
}

/// An image HDU read by [`read_fits_with`]: its data and its header.
#[derive(Debug, Clone)]
pub struct FitsImage {
    /// The image, NumPy's shape `(NAXISn, ..., NAXIS1)`.
    pub data: Array,
    /// The HDU's header cards as in the file.
    pub header: FitsHeader,
    /// The HDU's 0-based index in the file.
    pub hdu: usize,
}

/// Reads a FITS image onto `device`: the primary HDU, or the first image extension with data
/// if the primary has none (the module docs give the rule and the dtypes, astropy's
/// `fits.getdata`).
///
/// ```
/// use cuprum::{io, DType, Device};
/// let dev = Device::default_device();
/// let path = std::env::temp_dir().join("cuprum_read_fits_example.fits");
/// let img = cuprum::from_slice(&[1u16, 2, 65535, 4, 5, 6], &[2, 3], &dev)?;
/// io::write_fits(&path, &img)?;                     // BITPIX 16, BZERO 32768
/// let back = io::read_fits(&path, &dev)?;
/// assert_eq!((back.dtype(), back.shape()), (DType::UInt16, &[2usize, 3][..]));
/// assert_eq!(back.to_vec::<u16>()?, vec![1, 2, 65535, 4, 5, 6]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn read_fits(path: impl AsRef<Path>, device: &Device) -> Result<Array> {
    Ok(read_fits_with(path, &FitsReadOptions { device: *device, ..Default::default() })?.data)
}

/// Reads an image HDU with its header ([`FitsReadOptions`]: which HDU, scaling, device).
///
/// ```
/// use cuprum::io::{self, FitsCard, FitsHdu, FitsHeader, FitsReadOptions};
/// use cuprum::{DType, Device};
/// let dev = Device::default_device();
/// let path = std::env::temp_dir().join("cuprum_read_fits_with_example.fits");
/// let a = cuprum::from_slice(&[1.5f32, -2.0], &[2], &dev)?;
/// let b = cuprum::from_slice(&[7i32, 8, 9], &[3], &dev)?;
/// let mut cards = FitsHeader::new();
/// cards.push(FitsCard::new("EXTNAME", "SECOND"));
/// io::write_fits_with(&path, &[FitsHdu::empty(), FitsHdu::image(&a), FitsHdu::image(&b).with_cards(cards)])?;
/// let second = io::read_fits_with(&path, &FitsReadOptions { hdu: Some(2), ..Default::default() })?;
/// assert_eq!(second.header.get_str("EXTNAME"), Some("SECOND"));
/// assert_eq!(second.data.to_vec::<i32>()?, vec![7, 8, 9]);
/// // No HDU given: the primary is empty, so the first image extension.
/// assert_eq!(io::read_fits(&path, &dev)?.to_vec::<f32>()?, vec![1.5, -2.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn read_fits_with(path: impl AsRef<Path>, options: &FitsReadOptions) -> Result<FitsImage> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| io_err(path, e))?;
    fits_from_bytes(&bytes, options).map_err(|e| match e {
        Error::Io(m) => Error::Io(format!("{}: {m}", path.display())),
        e => e,
    })
}

/// The headers of every HDU of a FITS file, in file order (tables and other extensions
/// included), as astropy's `[h.header for h in fits.open(path)]`.
///
/// ```
/// use cuprum::{io, Device};
/// let path = std::env::temp_dir().join("cuprum_read_fits_headers_example.fits");
/// io::write_fits(&path, &cuprum::zeros(&[4, 5], cuprum::DType::Float64, &Device::Cpu)?)?;
/// let headers = io::read_fits_headers(&path)?;
/// assert_eq!(headers.len(), 1);
/// assert_eq!(headers[0].get_i64("BITPIX"), Some(-64));
/// assert_eq!((headers[0].get_i64("NAXIS1"), headers[0].get_i64("NAXIS2")), (Some(5), Some(4)));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn read_fits_headers(path: impl AsRef<Path>) -> Result<Vec<FitsHeader>> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| io_err(path, e))?;
    let mut it = HduIter::new(&bytes);
    let mut out = Vec::new();
    while let Some(h) = it.next_hdu().map_err(|e| match e {
        Error::Io(m) => Error::Io(format!("{}: {m}", path.display())),
        e => e,
    })? {
        out.push(h.header);
    }
    Ok(out)
}

/// [`read_fits_with`] on the bytes of a FITS file held in memory.
///
/// ```
/// use cuprum::io::fits::{fits_from_bytes, fits_to_bytes};
/// use cuprum::io::{FitsHdu, FitsReadOptions};
/// let a = cuprum::from_slice(&[1.0f64, 2.0], &[2], &cuprum::Device::Cpu)?;
/// let bytes = fits_to_bytes(&[FitsHdu::image(&a)])?;
/// assert_eq!(bytes.len(), 2 * 2880);                 // a header block and a data block
/// let img = fits_from_bytes(&bytes, &FitsReadOptions::default())?;
/// assert_eq!(img.data.to_vec::<f64>()?, vec![1.0, 2.0]);
/// let e = fits_from_bytes(&bytes[..2890], &FitsReadOptions::default()).unwrap_err();
/// assert_eq!(e.kind(), cuprum::ErrorKind::OSError);    // truncated inside the data
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn fits_from_bytes(bytes: &[u8], options: &FitsReadOptions) -> Result<FitsImage> {
    let mut it = HduIter::new(bytes);
    let (index, hdu) = match options.hdu {
        Some(n) => {
            let mut k = 0;
            loop {
                match it.next_hdu()? {
                    Some(h) if k == n => break (n, h),
                    Some(_) => k += 1,
                    None => {
                        return Err(Error::Index(format!("HDU {n} is out of range: the file has {k} HDUs")));
                    }
                }
            }
        }
        None => {
            let primary = it.next_hdu()?.ok_or_else(|| corrupt("no primary HDU"))?;
            if primary.has_data() {
                (0, primary)
            } else {
                let mut k = 1;
                loop {
                    match it.next_hdu()? {
                        Some(h) if h.has_data() => break (k, h),
                        Some(_) => k += 1,
                        None => {
                            return Err(Error::Index(
                                "no image data in the file: the primary HDU has none and no image extension has any"
                                    .into(),
                            ));
                        }
                    }
                }
            }
        }
    };
    let (bitpix, shape) = match &hdu.kind {
        HduKind::Image { bitpix, shape } => (*bitpix, shape.clone()),
        HduKind::Other(what) => {
            return Err(Error::NotImplemented(format!(
                "HDU {index} is a {what} HDU: cuprum reads FITS images only (the primary HDU and IMAGE extensions)"
            )));
        }
    };
    if !hdu.has_data() {
        return Err(Error::Index(format!("no data in HDU {index}")));
    }
    let end = hdu.data_start.checked_add(hdu.data_len).ok_or_else(|| corrupt("the data size overflows"))?;
    let raw = bytes.get(hdu.data_start..end).ok_or_else(|| {
        corrupt(format!(
            "the file ends inside the data of HDU {index}: {} bytes expected, {} present",
            hdu.data_len,
            bytes.len().saturating_sub(hdu.data_start)
        ))
    })?;
    let data = decode(raw, bitpix, &shape, &hdu.header, options.scale, &options.device).map_err(|e| match e {
        Error::Io(m) => corrupt(format!("HDU {index}: {m}")),
        e => e,
    })?;
    Ok(FitsImage { data, header: hdu.header, hdu: index })
}

/// Exactly `v == 2^(bits-1)` for an integer or real BZERO (astropy compares Python numbers).
fn is_pow2(v: &FitsValue, bits: u32) -> bool {
    match v {
        FitsValue::Int(i) => *i == 1i128 << (bits - 1),
        FitsValue::Float(x) => *x == 2f64.powi(bits as i32 - 1),
        _ => false,
    }
}

fn num(header: &FitsHeader, key: &str, default: f64) -> Result<(f64, Option<FitsValue>)> {
    match header.get(key) {
        None => Ok((default, None)),
        Some(v @ FitsValue::Int(i)) => Ok((*i as f64, Some(v.clone()))),
        Some(v @ FitsValue::Float(x)) => Ok((*x, Some(v.clone()))),
        Some(v) => Err(Error::Io(format!("{key} = {v} is not a number"))),
    }
}

/// Big-endian words of `SIZE` bytes to `T`.
fn be<const SIZE: usize, T>(raw: &[u8], f: impl Fn([u8; SIZE]) -> T) -> Vec<T> {
    raw.chunks_exact(SIZE).map(|c| f(c.try_into().expect("chunks_exact"))).collect()
}

fn le_bytes<T: Copy, const SIZE: usize>(v: &[T], f: impl Fn(T) -> [u8; SIZE]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * SIZE);
    for &x in v {
        out.extend_from_slice(&f(x));
    }
    out
}

/// The raw big-endian data of an image HDU as astropy's `getdata` gives it.
fn decode(
    raw: &[u8],
    bitpix: i64,
    shape: &[usize],
    header: &FitsHeader,
    scale: bool,
    device: &Device,
) -> Result<Array> {
    let (bscale, _) = num(header, "BSCALE", 1.0)?;
    let (bzero, bzero_v) = num(header, "BZERO", 0.0)?;
    // BLANK applies to integer data, and only when it is an integer (astropy ignores others).
    let blank = match header.get("BLANK") {
        Some(FitsValue::Int(b)) if bitpix > 0 => Some(*b),
        _ => None,
    };
    let put = |bytes: Vec<u8>, dt: DType| Array::from_bytes(&bytes, shape, dt, device);
    let raw_only =
        !scale || (bitpix < 0 && bscale == 1.0 && bzero == 0.0) || (bscale == 1.0 && bzero == 0.0 && blank.is_none());
    if raw_only {
        return match bitpix {
            8 => put(raw.to_vec(), DType::UInt8),
            16 => put(le_bytes(&be(raw, i16::from_be_bytes), i16::to_le_bytes), DType::Int16),
            32 => put(le_bytes(&be(raw, i32::from_be_bytes), i32::to_le_bytes), DType::Int32),
            64 => put(le_bytes(&be(raw, i64::from_be_bytes), i64::to_le_bytes), DType::Int64),
            -32 => put(le_bytes(&be(raw, f32::from_be_bytes), f32::to_le_bytes), DType::Float32),
            _ => put(le_bytes(&be(raw, f64::from_be_bytes), f64::to_le_bytes), DType::Float64),
        };
    }
    // The pseudo-integer conventions (BSCALE = 1): int8 and the unsigned types.
    if bscale == 1.0 && bitpix > 0 {
        if let Some(z) = &bzero_v {
            match bitpix {
                8 if *z == FitsValue::Int(-128) || *z == FitsValue::Float(-128.0) => {
                    return put(raw.iter().map(|&b| b ^ 0x80).collect(), DType::Int8);
                }
                16 if is_pow2(z, 16) => {
                    return put(
                        le_bytes(&be(raw, |b| u16::from_be_bytes(b) ^ 0x8000), u16::to_le_bytes),
                        DType::UInt16,
                    );
                }
                32 if is_pow2(z, 32) => {
                    return put(
                        le_bytes(&be(raw, |b| u32::from_be_bytes(b) ^ (1 << 31)), u32::to_le_bytes),
                        DType::UInt32,
                    );
                }
                64 if is_pow2(z, 64) => {
                    return put(
                        le_bytes(&be(raw, |b| u64::from_be_bytes(b) ^ (1 << 63)), u64::to_le_bytes),
                        DType::UInt64,
                    );
                }
                _ => {}
            }
        }
    }
    // Scaled to float: astropy converts, multiplies (if BSCALE != 1), adds (if BZERO != 0),
    // each in the result dtype, then writes NaN at the BLANK pixels.
    let is_blank = |v: i128| blank == Some(v);
    match bitpix {
        8 | 16 => {
            let (s, z) = (bscale as f32, bzero as f32);
            let f = |v: i128, x: f32| -> f32 {
                if is_blank(v) {
                    return f32::NAN;
                }
                let mut y = x;
                if bscale != 1.0 {
                    y *= s;
                }
                if bzero != 0.0 {
                    y += z;
                }
                y
            };
            let out: Vec<f32> = if bitpix == 8 {
                raw.iter().map(|&b| f(b as i128, b as f32)).collect()
            } else {
                be(raw, |b| {
                    let v = i16::from_be_bytes(b);
                    f(v as i128, v as f32)
                })
            };
            put(le_bytes(&out, f32::to_le_bytes), DType::Float32)
        }
        32 | 64 => {
            let f = |v: i128, x: f64| -> f64 {
                if is_blank(v) {
                    return f64::NAN;
                }
                let mut y = x;
                if bscale != 1.0 {
                    y *= bscale;
                }
                if bzero != 0.0 {
                    y += bzero;
                }
                y
            };
            let out: Vec<f64> = if bitpix == 32 {
                be(raw, |b| {
                    let v = i32::from_be_bytes(b);
                    f(v as i128, v as f64)
                })
            } else {
                be(raw, |b| {
                    let v = i64::from_be_bytes(b);
                    f(v as i128, v as f64)
                })
            };
            put(le_bytes(&out, f64::to_le_bytes), DType::Float64)
        }
        -32 => {
            let (s, z) = (bscale as f32, bzero as f32);
            let out: Vec<f32> = be(raw, |b| {
                let mut y = f32::from_be_bytes(b);
                if bscale != 1.0 {
                    y *= s;
                }
                if bzero != 0.0 {
                    y += z;
                }
                y
            });
            put(le_bytes(&out, f32::to_le_bytes), DType::Float32)
        }
        _ => {
            let out: Vec<f64> = be(raw, |b| {
                let mut y = f64::from_be_bytes(b);
                if bscale != 1.0 {
                    y *= bscale;
                }
                if bzero != 0.0 {
                    y += bzero;
                }
                y
            });
            put(le_bytes(&out, f64::to_le_bytes), DType::Float64)
        }
    }
}

// ------------------------------------------------------------------ writing

/// One HDU for [`write_fits_with`]: an image (or none) and extra header cards.
#[derive(Debug, Clone, Default)]
pub struct FitsHdu<'a> {
    /// The image (`None`: an HDU without data, e.g. an empty primary before extensions).
    pub data: Option<&'a Array>,
    /// Cards written after the mandatory ones (`OBJECT`, `EXTNAME`, `HISTORY`, ...). The
    /// structural keywords (SIMPLE, XTENSION, BITPIX, NAXIS, NAXISn, EXTEND, PCOUNT, GCOUNT,
    /// BSCALE, BZERO, BLANK, END) are cuprum's to write: giving one is a `ValueError`.
    pub cards: FitsHeader,
}

impl<'a> FitsHdu<'a> {
    /// An HDU holding `data`.
    pub fn image(data: &'a Array) -> FitsHdu<'a> {
        FitsHdu { data: Some(data), cards: FitsHeader::new() }
    }

    /// An HDU without data.
    pub fn empty() -> FitsHdu<'a> {
        FitsHdu::default()
    }

    /// The HDU with extra cards.
    pub fn with_cards(mut self, cards: FitsHeader) -> FitsHdu<'a> {
        self.cards = cards;
        self
    }
}

/// Writes `a` as the primary HDU of a new FITS file (replacing `path`): dtypes as astropy's
/// `PrimaryHDU(a).writeto(path)` (module docs; bool as uint8, float16 as float32).
///
/// ```
/// use cuprum::{io, DType, Device};
/// let dev = Device::default_device();
/// let a = cuprum::from_slice(&[-3i8, 0, 127], &[3], &dev)?;
/// let path = std::env::temp_dir().join("cuprum_write_fits_example.fits");
/// io::write_fits(&path, &a)?;                       // BITPIX 8, BZERO -128
/// let h = &io::read_fits_headers(&path)?[0];
/// assert_eq!((h.get_i64("BITPIX"), h.get_i64("BZERO")), (Some(8), Some(-128)));
/// assert_eq!(io::read_fits(&path, &dev)?.to_vec::<i8>()?, vec![-3, 0, 127]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn write_fits(path: impl AsRef<Path>, a: &Array) -> Result<()> {
    write_fits_with(path, &[FitsHdu::image(a)])
}

/// Writes several HDUs: the first is the primary, the others IMAGE extensions, each with its
/// extra cards (an example at [`read_fits_with`]).
pub fn write_fits_with(path: impl AsRef<Path>, hdus: &[FitsHdu<'_>]) -> Result<()> {
    let path = path.as_ref();
    let bytes = fits_to_bytes(hdus)?;
    std::fs::write(path, bytes).map_err(|e| io_err(path, e))
}

const RESERVED: [&str; 12] = [
    "SIMPLE", "XTENSION", "BITPIX", "NAXIS", "EXTEND", "PCOUNT", "GCOUNT", "BSCALE", "BZERO", "BLANK", "END", "GROUPS",
];

/// The bytes of the FITS file [`write_fits_with`] writes (an example at [`fits_from_bytes`]).
pub fn fits_to_bytes(hdus: &[FitsHdu<'_>]) -> Result<Vec<u8>> {
    if hdus.is_empty() {
        return Err(Error::Value("a FITS file needs at least a primary HDU".into()));
    }
    let mut out = Vec::new();
    for (i, hdu) in hdus.iter().enumerate() {
        for c in hdu.cards.iter() {
            let k = c.keyword.as_str();
            let naxis_n =
                k.strip_prefix("NAXIS").is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()));
            if RESERVED.contains(&k) || naxis_n {
                return Err(Error::Value(format!(
                    "FITS card {k} is written by cuprum from the data; it cannot be given"
                )));
            }
        }
        let mut cards: Vec<FitsCard> = Vec::new();
        if i == 0 {
            cards.push(FitsCard::new("SIMPLE", true).with_comment("conforms to FITS standard"));
        } else {
            cards.push(FitsCard::new("XTENSION", "IMAGE").with_comment("Image extension"));
        }
        let (bitpix, bzero, data): (i64, Option<i128>, Vec<u8>) = match hdu.data {
            None => (8, None, Vec::new()),
            Some(a) => encode(a)?,
        };
        let shape: Vec<usize> = hdu.data.map(|a| a.shape().to_vec()).unwrap_or_default();
        cards.push(FitsCard::new("BITPIX", bitpix).with_comment("array data type"));
        cards.push(FitsCard::new("NAXIS", shape.len() as i64).with_comment("number of array dimensions"));
        for (n, &d) in shape.iter().rev().enumerate() {
            cards.push(FitsCard::new(&format!("NAXIS{}", n + 1), d as i64));
        }
        if i == 0 {
            cards.push(FitsCard::new("EXTEND", true));
        } else {
            cards.push(FitsCard::new("PCOUNT", 0i64).with_comment("number of parameters"));
            cards.push(FitsCard::new("GCOUNT", 1i64).with_comment("number of groups"));
        }
        if let Some(z) = bzero {
            cards.push(FitsCard::new("BSCALE", 1i64));
            cards.push(FitsCard { keyword: "BZERO".into(), value: Some(FitsValue::Int(z)), comment: String::new() });
        }
        cards.extend(hdu.cards.iter().cloned());
        for c in &cards {
            out.extend_from_slice(&c.to_bytes()?);
        }
        let mut end = [b' '; CARD];
        end[..3].copy_from_slice(b"END");
        out.extend_from_slice(&end);
        out.resize(out.len().div_ceil(BLOCK) * BLOCK, b' ');
        out.extend_from_slice(&data);
        out.resize(out.len().div_ceil(BLOCK) * BLOCK, 0);
    }
    Ok(out)
}

fn be_bytes<T: Copy, const SIZE: usize>(v: &[T], f: impl Fn(T) -> [u8; SIZE]) -> Vec<u8> {
    le_bytes(v, f)
}

/// BITPIX, BZERO (for the unsigned and int8 conventions) and the big-endian data of `a`.
fn encode(a: &Array) -> Result<(i64, Option<i128>, Vec<u8>)> {
    if a.ndim() == 0 {
        return Err(Error::Value(
            "FITS has no 0-d image (NAXIS = 0 means no data): give the value a shape, e.g. (1,)".into(),
        ));
    }
    Ok(match a.dtype() {
        DType::Complex64 | DType::Complex128 => {
            return Err(Error::Value(format!(
                "FITS images have no complex type (BITPIX is 8, 16, 32, 64, -32 or -64): cannot write a {} \
                 array; write its real and imaginary parts (`a.real()`, `a.imag()`) as two images",
                a.dtype()
            )))
        }
        DType::Bool => (8, None, a.astype(DType::UInt8)?.to_vec::<u8>()?),
        DType::UInt8 => (8, None, a.to_vec::<u8>()?),
        DType::Int8 => (8, Some(-128), a.to_vec::<i8>()?.iter().map(|&v| (v as u8) ^ 0x80).collect()),
        DType::Int16 => (16, None, be_bytes(&a.to_vec::<i16>()?, i16::to_be_bytes)),
        DType::Int32 => (32, None, be_bytes(&a.to_vec::<i32>()?, i32::to_be_bytes)),
        DType::Int64 => (64, None, be_bytes(&a.to_vec::<i64>()?, i64::to_be_bytes)),
        DType::UInt16 => (16, Some(1 << 15), be_bytes(&a.to_vec::<u16>()?, |v| (v ^ 0x8000).to_be_bytes())),
        DType::UInt32 => (32, Some(1 << 31), be_bytes(&a.to_vec::<u32>()?, |v| (v ^ (1 << 31)).to_be_bytes())),
        DType::UInt64 => (64, Some(1 << 63), be_bytes(&a.to_vec::<u64>()?, |v| (v ^ (1 << 63)).to_be_bytes())),
        // Widened on the host, so that a NaN keeps its bits whatever device the array is on
        // (a GPU's conversion makes every NaN its canonical one).
        DType::Float16 => (
            -32,
            None,
            be_bytes(&a.to_device(&Device::Cpu)?.astype(DType::Float32)?.to_vec::<f32>()?, f32::to_be_bytes),
        ),
        DType::Float32 => (-32, None, be_bytes(&a.to_vec::<f32>()?, f32::to_be_bytes)),
        DType::Float64 => (-64, None, be_bytes(&a.to_vec::<f64>()?, f64::to_be_bytes)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_parse_and_print() {
        let mut raw = [b' '; 80];
        let s = b"OBJECT  = 'it''s M31'          / a comment";
        raw[..s.len()].copy_from_slice(s);
        let c = FitsCard::parse(&raw);
        assert_eq!(c.value, Some(FitsValue::Str("it's M31".into())));
        assert_eq!(c.comment, "a comment");
        let back = FitsCard::parse(&c.to_bytes().unwrap());
        assert_eq!(back, c);
        for (text, v) in [
            ("1.5D3", FitsValue::Float(1500.0)),
            ("-7", FitsValue::Int(-7)),
            ("9223372036854775808", FitsValue::Int(1 << 63)),
            ("T", FitsValue::Bool(true)),
            ("(1, 2)", FitsValue::Other("(1, 2)".into())),
        ] {
            let mut raw = [b' '; 80];
            let s = format!("KEY     = {text:>20}");
            raw[..s.len()].copy_from_slice(s.as_bytes());
            assert_eq!(FitsCard::parse(&raw).value, Some(v));
        }
        assert_eq!(float_text(1e20), "1E20");
        assert_eq!(float_text(2.0), "2.0");
        assert!(FitsCard::new("TOOLONGKEY", 1i64).to_bytes().is_err());
        assert!(FitsCard::new("X", f64::NAN).to_bytes().is_err());
    }
}
