//! `numpy.einsum`: Einstein summation, reduced to the library's own device-agnostic operations
//! (diagonal views, permutations and reshapes, sums over axes, broadcast products and batched
//! [`matmul`]), so that it runs on every device with no kernel of its own.
//!
//! The parsing and the errors follow NumPy's C implementation (`c_einsum`, what `np.einsum`
//! runs with its default `optimize=False`): the same subscripts are accepted, with the same
//! messages. The contraction differs in its method only: NumPy sums the products of all
//! operands in one pass; cuprum contracts them two at a time (the pair with the smallest
//! result first), each pair as one batched matrix product, so results agree with NumPy's to
//! floating-point rounding (integers exactly).

use super::{as_dtype, matmul, same_device};
use crate::array::Array;
use crate::core::dtype::{result_type, DType};
use crate::core::error::{Error, Result};

/// A subscript: an axis of the ellipsis (`...`), numbered from the left of the output's
/// broadcast axes, or a letter. Broadcast axes sort first, as in NumPy's implicit output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    Broadcast(usize),
    Letter(u8),
}

impl Label {
    fn char(self) -> char {
        match self {
            Label::Letter(c) => c as char,
            Label::Broadcast(_) => '.',
        }
    }
}

/// An operand (or an intermediate result) with one distinct label per axis.
struct Term {
    a: Array,
    labels: Vec<Label>,
}

impl Term {
    fn axis(&self, l: Label) -> Option<usize> {
        self.labels.iter().position(|&x| x == l)
    }

    fn has(&self, l: Label) -> bool {
        self.labels.contains(&l)
    }

    /// The axes of `labels` (all of them labels of this term), as `permute` takes them.
    fn axes(&self, labels: &[Label]) -> Vec<isize> {
        labels.iter().filter_map(|&l| self.axis(l)).map(|i| i as isize).collect()
    }

    /// The lengths of the axes of `labels`.
    fn dims(&self, labels: &[Label]) -> Vec<usize> {
        labels.iter().filter_map(|&l| self.axis(l)).map(|i| self.a.shape()[i]).collect()
    }

    /// Sums the axes whose labels `drop` selects, in dtype `dt` (NumPy's einsum accumulates in
    /// the operands' common dtype: integers wrap, `bool` is `or`).
    fn sum_where(self, dt: DType, drop: impl Fn(Label) -> bool) -> Result<Term> {
        let axes: Vec<usize> = (0..self.labels.len()).filter(|&i| drop(self.labels[i])).collect();
        if axes.is_empty() {
            return Ok(self);
        }
        let labels = self.labels.iter().copied().filter(|&l| !drop(l)).collect();
        let s = self.a.sum(axes)?;
        let a = if s.dtype() == dt { s } else { s.astype(dt)? };
        Ok(Term { a, labels })
    }
}

/// `numpy.einsum(subscripts, *operands)`: the sum of products of the operands' elements
/// named by Einstein's summation convention.
///
/// `subscripts` labels each operand's axes with letters (`a`-`z`, `A`-`Z`), operands separated
/// by commas; after `->` the output's labels, in the order wanted. Without `->` (implicit
/// mode) the output has the labels that appear once, in alphabetical order (upper case first).
/// A label repeated in one operand takes its diagonal (`"ii->i"`, `"ii"` the trace), one
/// absent from the output is summed over, and `...` stands for the axes not labelled, which
/// broadcast between the operands as NumPy's do and come first in an implicit output. Axes of
/// one label broadcast too (a length 1 against any length). Spaces are ignored.
///
/// The result's dtype is the operands' promoted dtype, in which the sums are made (integers
/// wrap, `bool` gives `or` of `and`s; float16 is computed in float32, as NumPy's loops
/// accumulate). One operand with nothing to sum gives a view of it (a transpose or a
/// diagonal), as in NumPy; otherwise a new C-contiguous array. Several operands are contracted
/// two at a time, the pair with the smallest result first; a pair with labels to sum is one
/// batched [`matmul`] (cuBLAS on a GPU), so results agree with NumPy's to rounding.
///
/// Errors are NumPy's `ValueError`s with its messages (subscripts that do not match the
/// operands, a label of different lengths that do not broadcast, ...); operands on different
/// devices are a `DeviceMismatch`.
///
/// ```
/// use cuprum::{linalg, Device};
/// let dev = Device::default_device();
/// let a = cuprum::arange(6, &dev)?.reshape([2, 3])?;
/// let b = cuprum::arange(12, &dev)?.reshape([3, 4])?;
/// let c = linalg::einsum("ij,jk->ik", &[&a, &b])?;               // a @ b
/// assert_eq!(c.to_vec::<i64>()?, vec![20, 23, 26, 29, 56, 68, 80, 92]);
/// assert_eq!(cuprum::einsum("ij->ji", &[&a])?.shape(), &[3, 2]); // a.T
/// let m = cuprum::arange(9, &dev)?.reshape([3, 3])?;
/// assert_eq!(cuprum::einsum("ii", &[&m])?.item::<i64>()?, 12);   // the trace
/// assert_eq!(cuprum::einsum("ii->i", &[&m])?.to_vec::<i64>()?, vec![0, 4, 8]);
/// let x = cuprum::arange(3, &dev)?;
/// let e = cuprum::einsum("i,i->i", &[&x, &a]).unwrap_err();
/// assert_eq!(e.kind(), cuprum::ErrorKind::ValueError);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn einsum(subscripts: &str, operands: &[&Array]) -> Result<Array> {
    let Some(first) = operands.first() else {
        return Err(Error::Value("must specify the einstein sum subscripts string and at least one operand".into()));
    };
    for op in &operands[1..] {
        same_device("einsum", first, op)?;
    }
    let Subscripts { inputs, output, letters } = parse(subscripts, operands)?;
    if let [labels] = &inputs[..] {
        single_view_check(first, labels, &output)?;
    }
    let mut terms = inputs
        .iter()
        .zip(operands)
        .enumerate()
        .map(|(iop, (labels, a))| combine(a, labels, iop))
        .collect::<Result<Vec<Term>>>()?;
    // The summed labels follow the output's in NumPy's iteration (its error names them so).
    let mut iter_labels = output.clone();
    iter_labels.extend(letters.into_iter().filter(|l| !output.contains(l)));
    let sizes = label_sizes(&terms, &iter_labels)?;
    if terms.len() == 1 && terms[0].labels.iter().all(|l| output.contains(l)) {
        // NumPy's view: one operand, nothing summed.
        return terms[0].a.permute(&terms[0].axes(&output));
    }

    let dt = result_type(&operands.iter().map(|a| a.dtype()).collect::<Vec<_>>()).unwrap_or(first.dtype());
    let cdt = if dt == DType::Float16 { DType::Float32 } else { dt };
    for t in &mut terms {
        // An axis of length 1 broadcast against a longer one: its elements are the same
        // along that label, so the operand drops the axis and the others carry the label.
        let ones: Vec<usize> =
            (0..t.labels.len()).filter(|&i| t.a.shape()[i] == 1 && size(&sizes, t.labels[i]) != 1).collect();
        if !ones.is_empty() {
            t.a = t.a.squeeze_axes(ones.clone())?;
            t.labels = (0..t.labels.len()).filter(|i| !ones.contains(i)).map(|i| t.labels[i]).collect();
        }
        t.a = as_dtype(&t.a, cdt)?;
    }
    // Labels of one operand only and not in the output: summed first, in that operand.
    let alone: Vec<Vec<Label>> = (0..terms.len())
        .map(|i| {
            let elsewhere =
                |l: &Label| output.contains(l) || terms.iter().enumerate().any(|(j, o)| j != i && o.has(*l));
            terms[i].labels.iter().copied().filter(|l| !elsewhere(l)).collect()
        })
        .collect();
    let mut terms = terms
        .into_iter()
        .zip(alone)
        .map(|(t, alone)| t.sum_where(cdt, |l| alone.contains(&l)))
        .collect::<Result<Vec<_>>>()?;
    while terms.len() > 1 {
        let (i, j) = best_pair(&terms, &output, &sizes);
        let y = terms.remove(j);
        let x = terms.remove(i);
        let kept = |l: Label| output.contains(&l) || terms.iter().any(|t| t.has(l));
        terms.insert(i, contract(&x, &y, kept)?);
    }
    let t = terms.remove(0).sum_where(cdt, |l| !output.contains(&l))?;
    let out = t.a.permute(&t.axes(&output))?;
    if cdt == dt {
        out.as_contiguous()
    } else {
        out.astype(dt)
    }
}

/// The length of label `l` (1 for a label of no operand: none reach here).
fn size(sizes: &[(Label, usize)], l: Label) -> usize {
    sizes.iter().find(|(x, _)| *x == l).map_or(1, |&(_, n)| n)
}

/// The subscripts, parsed.
struct Subscripts {
    /// Each operand's labels, one per axis.
    inputs: Vec<Vec<Label>>,
    /// The output's labels, one per axis.
    output: Vec<Label>,
    /// The letters of the inputs, sorted.
    letters: Vec<Label>,
}

/// NumPy's `parse_operand_subscripts` and `parse_output_subscripts`, with their checks in
/// their order.
fn parse(subscripts: &str, operands: &[&Array]) -> Result<Subscripts> {
    let s: Vec<char> = subscripts.chars().collect();
    let nop = operands.len();
    let mut counts = [0usize; 128];
    let mut raw: Vec<Vec<Option<u8>>> = Vec::with_capacity(nop);
    let mut rest = &s[..];
    for (iop, op) in operands.iter().enumerate() {
        let len = rest.iter().position(|&c| c == ',' || c == '-').unwrap_or(rest.len());
        let at_comma = rest.get(len) == Some(&',');
        // NumPy's two messages, worded as they are (each names the other count).
        if iop == nop - 1 && at_comma {
            return Err(Error::Value(
                "more operands provided to einstein sum function than specified in the subscripts string".into(),
            ));
        }
        if iop < nop - 1 && !at_comma {
            return Err(Error::Value(
                "fewer operands provided to einstein sum function than specified in the subscripts string".into(),
            ));
        }
        raw.push(parse_operand(&rest[..len], op.ndim(), iop, &mut counts)?);
        rest = &rest[len + usize::from(iop < nop - 1)..];
    }
    // The broadcast axes: as many as the operand with the most of them has.
    let nbroad = raw.iter().map(|r| r.iter().filter(|l| l.is_none()).count()).max().unwrap_or(0);
    let letters: Vec<Label> = (0u8..128).filter(|&c| counts[c as usize] > 0).map(Label::Letter).collect();
    let output = if rest.is_empty() {
        let mut out: Vec<Label> = (0..nbroad).map(Label::Broadcast).collect();
        out.extend(letters.iter().copied().filter(|l| matches!(l, Label::Letter(c) if counts[*c as usize] == 1)));
        out
    } else if rest.starts_with(&['-', '>']) {
        parse_output(&rest[2..], nbroad, &counts)?
    } else {
        return Err(Error::Value("einstein sum subscript string does not contain proper '->' output specified".into()));
    };
    // An operand's broadcast axes are the last of the output's (they align on the right).
    let inputs = raw
        .into_iter()
        .map(|r| {
            let mut broadcast = (nbroad - r.iter().filter(|l| l.is_none()).count()..).map(Label::Broadcast);
            r.into_iter().filter_map(|l| l.map(Label::Letter).or_else(|| broadcast.next())).collect()
        })
        .collect();
    Ok(Subscripts { inputs, output, letters })
}

/// NumPy's "invalid subscript" error.
fn invalid(c: char) -> Error {
    Error::Value(format!("invalid subscript '{c}' in einstein sum subscripts string, subscripts must be letters"))
}

/// Whether `s[i..]` starts a proper `...` (NumPy's test, its `i + 2 >= length` included).
fn is_ellipsis(s: &[char], i: usize) -> bool {
    i + 2 < s.len() && s[i + 1] == '.' && s[i + 2] == '.'
}

/// One operand's labels, one per axis (`None` for the axes of its ellipsis).
fn parse_operand(s: &[char], ndim: usize, iop: usize, counts: &mut [usize; 128]) -> Result<Vec<Option<u8>>> {
    let mut labels = Vec::with_capacity(ndim);
    let mut ellipsis = None;
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c.is_ascii_alphabetic() {
            if labels.len() >= ndim {
                return Err(Error::Value(format!(
                    "einstein sum subscripts string contains too many subscripts for operand {iop}"
                )));
            }
            labels.push(Some(c as u8));
            counts[c as usize] += 1;
        } else if c == '.' {
            if ellipsis.is_some() || !is_ellipsis(s, i) {
                return Err(Error::Value(format!(
                    "einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') in operand {iop}"
                )));
            }
            ellipsis = Some(labels.len());
            i += 2;
        } else if c != ' ' {
            return Err(invalid(c));
        }
        i += 1;
    }
    match ellipsis {
        None if labels.len() != ndim => Err(Error::Value(
            "operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to broadcast the extra dimensions.".into(),
        )),
        None => Ok(labels),
        Some(at) => {
            let extra = ndim - labels.len();
            labels.splice(at..at, std::iter::repeat_n(None, extra));
            Ok(labels)
        }
    }
}

/// The output's labels after `->`.
fn parse_output(s: &[char], nbroad: usize, counts: &[usize; 128]) -> Result<Vec<Label>> {
    let mut out = Vec::new();
    let mut ellipsis = false;
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c.is_ascii_alphabetic() {
            if s[i + 1..].contains(&c) {
                return Err(Error::Value(format!(
                    "einstein sum subscripts string includes output subscript '{c}' multiple times"
                )));
            }
            if counts[c as usize] == 0 {
                return Err(Error::Value(format!(
                    "einstein sum subscripts string included output subscript '{c}' which never appeared in an input"
                )));
            }
            out.push(Label::Letter(c as u8));
        } else if c == '.' {
            if ellipsis || !is_ellipsis(s, i) {
                return Err(Error::Value(
                    "einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') in the output"
                        .into(),
                ));
            }
            ellipsis = true;
            out.extend((0..nbroad).map(Label::Broadcast));
            i += 2;
        } else if c != ' ' {
            return Err(invalid(c));
        }
        i += 1;
    }
    if !ellipsis && nbroad > 0 {
        return Err(Error::Value(
            "output has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to broadcast the extra dimensions.".into(),
        ));
    }
    Ok(out)
}

/// The check of NumPy's view of one operand (`get_single_op_view`), made before the others:
/// the axes of a repeated label, up to the first label that is summed.
fn single_view_check(a: &Array, labels: &[Label], output: &[Label]) -> Result<()> {
    for (j, &l) in labels.iter().enumerate() {
        if !output.contains(&l) {
            break;
        }
        if let Some(i) = labels[..j].iter().position(|&x| x == l) {
            if a.shape()[i] != a.shape()[j] {
                return Err(Error::Value(format!(
                    "dimensions in single operand for collapsing index '{}' don't match ({} != {})",
                    l.char(),
                    a.shape()[i],
                    a.shape()[j]
                )));
            }
        }
    }
    Ok(())
}

/// Operand `iop` with its repeated labels taken as diagonals (views): the diagonal stays where
/// the label first appears, as NumPy's `get_combined_dims_view`.
fn combine(a: &Array, labels: &[Label], iop: usize) -> Result<Term> {
    // NumPy's checks first, in its order (by the repeat's axis).
    for j in 0..labels.len() {
        if let Some(i) = labels[..j].iter().position(|&l| l == labels[j]) {
            if a.shape()[i] != a.shape()[j] {
                return Err(Error::Value(format!(
                    "dimensions in operand {iop} for collapsing index '{}' don't match ({} != {})",
                    labels[j].char(),
                    a.shape()[i],
                    a.shape()[j]
                )));
            }
        }
    }
    let mut t = Term { a: a.view(), labels: labels.to_vec() };
    let mut i = 0;
    while i < t.labels.len() {
        while let Some(j) = (i + 1..t.labels.len()).find(|&j| t.labels[j] == t.labels[i]) {
            // The diagonal over axes i and j is the last axis: back to i.
            t.a = t.a.diagonal_with(0, i as isize, j as isize)?.moveaxis(-1, i as isize)?;
            t.labels.remove(j);
        }
        i += 1;
    }
    Ok(t)
}

/// Each label's length over all operands (equal, or 1 against any length, as the broadcast of
/// NumPy's iterator); else NumPy's error, which shows each operand on the iteration's axes
/// (`iter_labels`).
fn label_sizes(terms: &[Term], iter_labels: &[Label]) -> Result<Vec<(Label, usize)>> {
    let mut sizes: Vec<(Label, usize)> = Vec::new();
    for t in terms {
        for (&l, &n) in t.labels.iter().zip(t.a.shape()) {
            match sizes.iter_mut().find(|(x, _)| *x == l) {
                None => sizes.push((l, n)),
                Some((_, m)) if *m == 1 => *m = n,
                Some((_, m)) if n != 1 && n != *m => return Err(broadcast_error(terms, iter_labels)),
                Some(_) => {}
            }
        }
    }
    Ok(sizes)
}

/// NumPy's "operands could not be broadcast together with remapped shapes" (nditer's message,
/// its trailing space included).
fn broadcast_error(terms: &[Term], iter_labels: &[Label]) -> Error {
    let mut msg = String::from("operands could not be broadcast together with remapped shapes [original->remapped]: ");
    for t in terms {
        let orig: Vec<Option<usize>> = t.a.shape().iter().map(|&n| Some(n)).collect();
        let remapped: Vec<Option<usize>> = iter_labels.iter().map(|&l| t.axis(l).map(|i| t.a.shape()[i])).collect();
        msg.push_str(&format!("{}->{} ", shape_string(&orig), shape_string(&remapped)));
    }
    Error::Value(msg)
}

/// NumPy's `convert_shape_to_string`: `None` is a new axis, left out when leading.
fn shape_string(dims: &[Option<usize>]) -> String {
    let Some(first) = dims.iter().position(Option::is_some) else {
        return "()".into();
    };
    let parts: Vec<String> = dims[first..].iter().map(|d| d.map_or("newaxis".into(), |n| n.to_string())).collect();
    if dims.len() == 1 {
        format!("({},)", parts[0])
    } else {
        format!("({})", parts.join(","))
    }
}

/// The pair of terms to contract next: the one with the smallest result, the leftmost of
/// equals (so a chain of equal costs goes left to right, as NumPy's order).
fn best_pair(terms: &[Term], output: &[Label], sizes: &[(Label, usize)]) -> (usize, usize) {
    let mut best = (usize::MAX, 0, 1);
    for i in 0..terms.len() {
        for j in i + 1..terms.len() {
            let kept =
                |l: &Label| output.contains(l) || terms.iter().enumerate().any(|(k, t)| k != i && k != j && t.has(*l));
            let (x, y) = (&terms[i], &terms[j]);
            let result = x.labels.iter().chain(y.labels.iter().filter(|l| !x.has(**l))).filter(|l| kept(l));
            let cost = result.fold(1usize, |p, &l| p.saturating_mul(size(sizes, l)));
            if cost < best.0 {
                best = (cost, i, j);
            }
        }
    }
    (best.1, best.2)
}

/// The contraction of two terms: the labels of both that `kept` keeps form a batch, the
/// others of both are summed (a batched matrix product), those of one only stay; the result's
/// labels are the batch's, `x`'s own, then `y`'s own. Without labels to sum, a broadcast
/// product.
fn contract(x: &Term, y: &Term, kept: impl Fn(Label) -> bool) -> Result<Term> {
    let (batch, summed): (Vec<Label>, Vec<Label>) = x.labels.iter().filter(|l| y.has(**l)).partition(|l| kept(**l));
    let xo: Vec<Label> = x.labels.iter().copied().filter(|l| !y.has(*l)).collect();
    let yo: Vec<Label> = y.labels.iter().copied().filter(|l| !x.has(*l)).collect();
    let bd = x.dims(&batch);
    let (xd, yd) = (x.dims(&xo), y.dims(&yo));
    let cat = |parts: &[&[Label]]| parts.concat();
    let a = if summed.is_empty() {
        let xs = [bd.clone(), xd.clone(), vec![1; yo.len()]].concat();
        let ys = [bd.clone(), vec![1; xo.len()], yd.clone()].concat();
        let xv = x.a.permute(&x.axes(&cat(&[&batch, &xo])))?.reshape(xs)?;
        let yv = y.a.permute(&y.axes(&cat(&[&batch, &yo])))?.reshape(ys)?;
        crate::multiply(&xv, &yv)?
    } else {
        let k: usize = x.dims(&summed).iter().product();
        let (m, n) = (xd.iter().product::<usize>(), yd.iter().product::<usize>());
        let xv = x.a.permute(&x.axes(&cat(&[&batch, &xo, &summed])))?.reshape([bd.clone(), vec![m, k]].concat())?;
        let yv = y.a.permute(&y.axes(&cat(&[&batch, &summed, &yo])))?.reshape([bd.clone(), vec![k, n]].concat())?;
        matmul(&xv, &yv)?.reshape([bd, xd, yd].concat())?
    };
    Ok(Term { a, labels: cat(&[&batch, &xo, &yo]) })
}
