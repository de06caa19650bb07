//! Basic indexing: the elements of an [`s!`](crate::s) index, like NumPy's `a[1:8:2, ::-1, None, ..., 3]`.

use crate::core::error::{Error, Result};
use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

/// One element of a basic index.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SliceElem {
    /// An integer index (negative counts from the end); removes the axis.
    Index(isize),
    /// `start:stop:step` (negative values count from the end; step may be negative, not zero).
    Slice { start: Option<isize>, end: Option<isize>, step: isize },
    /// `np.newaxis`: inserts an axis of length 1.
    NewAxis,
    /// `...`: as many full slices as needed.
    Ellipsis,
}

/// `np.newaxis` for [`s!`](crate::s).
pub const NEW_AXIS: SliceElem = SliceElem::NewAxis;
/// `...` for [`s!`](crate::s).
pub const ELLIPSIS: SliceElem = SliceElem::Ellipsis;

impl SliceElem {
    /// Sets the step of a slice (`s![a..b;step]`); an integer index ignores it.
    pub fn step_by(self, step: isize) -> SliceElem {
        match self {
            SliceElem::Slice { start, end, .. } => SliceElem::Slice { start, end, step },
            SliceElem::Index(i) if step != 1 => SliceElem::Slice { start: Some(i), end: None, step },
            other => other,
        }
    }
}

/// A bound of a Rust range as a slice bound: values past `isize::MAX` (a `usize` range) saturate, as
/// NumPy clamps any bound to the axis.
fn bound<T: TryInto<isize>>(v: T) -> isize {
    v.try_into().unwrap_or(isize::MAX)
}

/// The exclusive end of an inclusive range ending at `end`: `-1` (the last element) and
/// `isize::MAX` reach the end of the axis (`None`), without overflowing `end + 1`.
fn inclusive_end(end: isize) -> Option<isize> {
    if end == -1 {
        None
    } else {
        end.checked_add(1)
    }
}

macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for SliceElem { fn from(i: $t) -> Self { SliceElem::Index(bound(i)) } }
        impl From<Range<$t>> for SliceElem {
            fn from(r: Range<$t>) -> Self { SliceElem::Slice { start: Some(bound(r.start)), end: Some(bound(r.end)), step: 1 } }
        }
        impl From<RangeFrom<$t>> for SliceElem {
            fn from(r: RangeFrom<$t>) -> Self { SliceElem::Slice { start: Some(bound(r.start)), end: None, step: 1 } }
        }
        impl From<RangeTo<$t>> for SliceElem {
            fn from(r: RangeTo<$t>) -> Self { SliceElem::Slice { start: None, end: Some(bound(r.end)), step: 1 } }
        }
        impl From<RangeInclusive<$t>> for SliceElem {
            fn from(r: RangeInclusive<$t>) -> Self {
                SliceElem::Slice { start: Some(bound(*r.start())), end: inclusive_end(bound(*r.end())), step: 1 }
            }
        }
        impl From<RangeToInclusive<$t>> for SliceElem {
            fn from(r: RangeToInclusive<$t>) -> Self {
                SliceElem::Slice { start: None, end: inclusive_end(bound(r.end)), step: 1 }
            }
        }
    )*};
}
from_int!(i32, i64, isize, usize, u32);

impl From<RangeFull> for SliceElem {
    fn from(_: RangeFull) -> Self {
        SliceElem::Slice { start: None, end: None, step: 1 }
    }
}

/// Builds a basic index, NumPy style: `s![1..8;2, ..;-1, NEW_AXIS, ELLIPSIS, 3]` is
/// `a[1:8:2, ::-1, np.newaxis, ..., 3]`. Ranges may use negative bounds (`-3..`).
///
/// A range such as `1..-1` (NumPy's `1:-1`) is empty as a Rust range, which clippy's
/// `reversed_empty_ranges` would reject; the expansion allows that lint, so code calling `s!` is not flagged:
///
/// ```
/// #![deny(clippy::reversed_empty_ranges)]
/// use cuprum::{s, SliceElem};
/// let idx = s![.., 1..-1];
/// assert_eq!(idx[1], SliceElem::Slice { start: Some(1), end: Some(-1), step: 1 });
/// ```
#[macro_export]
macro_rules! s {
    (@parse [$($acc:expr,)*] $r:expr ; $st:expr , $($t:tt)*) => {
        $crate::s!(@parse [$($acc,)* $crate::SliceElem::from($r).step_by(($st) as isize),] $($t)*)
    };
    (@parse [$($acc:expr,)*] $r:expr ; $st:expr) => {
        $crate::s!(@parse [$($acc,)* $crate::SliceElem::from($r).step_by(($st) as isize),])
    };
    (@parse [$($acc:expr,)*] $r:expr , $($t:tt)*) => {
        $crate::s!(@parse [$($acc,)* $crate::SliceElem::from($r),] $($t)*)
    };
    (@parse [$($acc:expr,)*] $r:expr) => {
        $crate::s!(@parse [$($acc,)* $crate::SliceElem::from($r),])
    };
    // `1..-1` is a NumPy slice here, not an empty Rust range: allowed on the `let` holding the elements.
    (@parse [$($acc:expr,)*]) => {{
        #[allow(clippy::reversed_empty_ranges)]
        let elems = [$($acc),*];
        elems
    }};
    ($($t:tt)*) => { $crate::s!(@parse [] $($t)*) };
}

/// Python's `slice.indices(len)`: (start, step, count) of a slice over an axis of length `len`.
pub(crate) fn slice_indices(
    start: Option<isize>,
    end: Option<isize>,
    step: isize,
    len: usize,
) -> Result<(isize, isize, usize)> {
    if step == 0 {
        return Err(Error::InvalidArgument("slice step cannot be zero".into()));
    }
    let len = len as isize;
    let clamp = |v: isize, lo: isize, hi: isize| v.max(lo).min(hi);
    let norm = |v: isize| if v < 0 { v + len } else { v };
    let (lo, hi) = if step > 0 { (0, len) } else { (-1, len - 1) };
    let s = match start {
        None => {
            if step > 0 {
                lo
            } else {
                hi
            }
        }
        Some(v) => clamp(norm(v), lo, hi),
    };
    let e = match end {
        None => {
            if step > 0 {
                hi
            } else {
                lo
            }
        }
        Some(v) => clamp(norm(v), lo, hi),
    };
    // ceil(distance / |step|) without overflow: the distance is at most the axis length, and a step
    // as large as `isize::MAX` or `isize::MIN` (whose negation overflows) takes one element.
    let span = if step > 0 { e - s } else { s - e };
    let n = if span > 0 { (span as usize - 1) / step.unsigned_abs() + 1 } else { 0 };
    Ok((s, step, n))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn python_slice_indices() {
        assert_eq!(slice_indices(Some(8), None, 16, 2048).unwrap(), (8, 16, 128));
        assert_eq!(slice_indices(None, None, -1, 5).unwrap(), (4, -1, 5));
        assert_eq!(slice_indices(Some(-3), None, 1, 5).unwrap(), (2, 1, 3));
        assert_eq!(slice_indices(Some(10), Some(20), 1, 5).unwrap().2, 0);
        assert_eq!(slice_indices(None, Some(-10), -2, 5).unwrap(), (4, -2, 3));
        assert!(slice_indices(None, None, 0, 5).is_err());
        // Steps and bounds at the ends of isize (Python: one element each, or the whole axis).
        assert_eq!(slice_indices(Some(1), Some(4), isize::MAX - 1, 5).unwrap(), (1, isize::MAX - 1, 1));
        assert_eq!(slice_indices(Some(0), Some(5), isize::MAX, 5).unwrap(), (0, isize::MAX, 1));
        assert_eq!(slice_indices(None, None, isize::MIN, 5).unwrap(), (4, isize::MIN, 1));
        assert_eq!(slice_indices(Some(isize::MIN), Some(isize::MAX), 1, 5).unwrap(), (0, 1, 5));
        assert_eq!(slice_indices(Some(isize::MAX), Some(isize::MIN), -1, 5).unwrap(), (4, -1, 5));
        assert_eq!(slice_indices(None, None, isize::MIN + 1, 0).unwrap().2, 0);
        assert_eq!(crate::s![0..=isize::MAX][0], SliceElem::Slice { start: Some(0), end: None, step: 1 });
        assert_eq!(crate::s![0..usize::MAX][0], SliceElem::Slice { start: Some(0), end: Some(isize::MAX), step: 1 });
        assert_eq!(crate::s![..=usize::MAX][0], SliceElem::Slice { start: None, end: None, step: 1 });
        assert_eq!(SliceElem::from(usize::MAX), SliceElem::Index(isize::MAX));
        let s = crate::s![8..;16, ..;-1, 3, NEW_AXIS, 1..-1];
        assert_eq!(s.len(), 5);
        assert_eq!(s[0], SliceElem::Slice { start: Some(8), end: None, step: 16 });
        assert_eq!(s[2], SliceElem::Index(3));
    }

    /// `1..-1` is NumPy's `1:-1`; clippy checks this test with `reversed_empty_ranges` denied.
    #[test]
    #[deny(clippy::reversed_empty_ranges)]
    fn negative_end_is_not_an_empty_range() {
        let s = crate::s![.., 1..-1];
        assert_eq!(s[0], SliceElem::Slice { start: None, end: None, step: 1 });
        assert_eq!(s[1], SliceElem::Slice { start: Some(1), end: Some(-1), step: 1 });
        assert_eq!(slice_indices(Some(1), Some(-1), 1, 5).unwrap(), (1, 1, 3));
    }
}
