//! Fusion (CuPy's `cupy.fuse`): an elementwise formula compiled into one kernel.
//!
//! An [`Expr`](crate::Expr) is a tree of operations over arrays and Rust scalars. Each node is
//! resolved as it is built, with the rules the step-by-step operation uses (NumPy 2's
//! promotion, weak scalars, broadcasting, one device), so a formula's error surfaces at
//! [`Expr::eval`](crate::Expr::eval) with the kind and message the unfused operation gives.
//! `eval` then computes the whole tree at once:
//!
//! - **GPU** (`cuda.rs`): one kernel for the tree, generated from each node's own ufunc
//!   expression (the built-in kernels' C expressions), every intermediate held in a register
//!   in its dtype's storage type, exactly as the unfused operations would have stored it. The
//!   kernel is cached by the tree's shape and dtypes (never by the scalars' values, which are
//!   kernel parameters), in each of `elementwise.cu`'s layouts.
//! - **CPU** (`cpu.rs`): one pass over the output in blocks of a few thousand elements, each
//!   node computed into a block-sized buffer by the CPU backend's own typed loops, blocks in
//!   parallel on threads: no array-sized temporaries.
//!
//! Both give the dtypes and the bits the unfused operations give (tested on random trees),
//! with one exception: the sign and payload of a NaN that arithmetic makes from NaN operands,
//! which IEEE 754 leaves unspecified and the CUDA compiler may change by reordering operands
//! or folding a negation into the next instruction. Negation, absolute value and conjugation
//! are sign-bit operations on both devices (NumPy's bits, `cuprum_neg` in prelude.cuh).
//!
//! A node whose check needs the data (an integer power of an array exponent, which NumPy
//! rejects for negative exponents) evaluates its exponent first, as does everything after
//! [`Expr::and_then`](crate::Expr::and_then) and the reductions: their results enter the tree as
//! arrays.
//!
//! [`fuse`](crate::fuse()) wraps a closure over `Expr`s into a function of arrays (`cupy.fuse`'s decorator).

pub(crate) mod cpu;
pub(crate) mod cuda;

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout::Axes;
use crate::core::ufunc::{BinaryOp, ReduceOp, UnaryOp};
use crate::ufunc::{self, broadcast_shape, Kind, Operand};
use std::sync::Arc;

/// A node of a formula: its operation and what it yields (dtype, broadcast shape, device; a
/// scalar has no shape or device of its own).
#[derive(Debug)]
pub(crate) struct Node {
    pub op: Op,
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub device: Option<Device>,
    /// The steps of a walk of the tree from here (a shared subtree counted each time it is
    /// met; saturating) and the inputs it meets (arrays and scalars, likewise): at most
    /// [`MAX_STEPS`] and [`MAX_INPUTS`].
    steps: u32,
    inputs: u32,
}

/// The most steps one fused formula takes. A formula that would grow past it (a loop that
/// adds a term 10,000 times, `x = x + x` repeated) has its operands computed first, where the
/// step-by-step code would compute them, so that every walk of a tree (the kernel's code, the
/// CPU's blocks, `Debug`, `Drop`) is bounded, the generated kernel stays small, and no
/// formula overflows the stack or the kernel's step numbers.
pub(crate) const MAX_STEPS: u32 = 256;

/// The most inputs (arrays and scalars, counted with repeats) one fused kernel takes: its
/// parameters stay far within CUDA's limit on a launch's parameter space.
pub(crate) const MAX_INPUTS: u32 = 32;

/// The steps and inputs of a node of `op` (see [`Node`]).
fn counts(op: &Op) -> (u32, u32) {
    let add = |(s, i): (u32, u32), c: &NodeRef| (s.saturating_add(c.steps), i.saturating_add(c.inputs));
    match op {
        Op::Leaf(_) | Op::Scalar(_) => (1, 1),
        Op::Const(_) => (1, 0),
        Op::Unary(_, _, x) | Op::Cast(x) => add((1, 0), x),
        Op::Binary(_, _, a, b) => add(add((1, 0), a), b),
        Op::Where(c, x, y) => add(add(add((1, 0), c), x), y),
    }
}

/// A node of `op` yielding `dtype` of `shape` on `device`. Where the tree would pass
/// [`MAX_STEPS`] or [`MAX_INPUTS`], the operands that are formulas are computed first (each
/// shared one once) and enter as arrays: the values are the step-by-step code's (the fused
/// kernel computes each node as that code does), the first error the same.
fn node(op: Op, dtype: DType, shape: Vec<usize>, device: Option<Device>) -> Result<NodeRef> {
    let (mut steps, mut inputs) = counts(&op);
    let op = if steps > MAX_STEPS || inputs > MAX_INPUTS {
        let mut done: Vec<(*const Node, NodeRef)> = Vec::new();
        let mut flat = |c: NodeRef| -> Result<NodeRef> {
            if matches!(c.op, Op::Leaf(_) | Op::Scalar(_) | Op::Const(_)) {
                return Ok(c);
            }
            let p = Arc::as_ptr(&c);
            if let Some((_, l)) = done.iter().find(|(q, _)| *q == p) {
                return Ok(l.clone());
            }
            let l = leaf(eval(&c)?);
            done.push((p, l.clone()));
            Ok(l)
        };
        let op = match op {
            Op::Unary(o, l, x) => Op::Unary(o, l, flat(x)?),
            Op::Cast(x) => Op::Cast(flat(x)?),
            Op::Binary(o, l, a, b) => {
                let a = flat(a)?;
                Op::Binary(o, l, a, flat(b)?)
            }
            Op::Where(c, x, y) => {
                let (c, x) = (flat(c)?, flat(x)?);
                Op::Where(c, x, flat(y)?)
            }
            op => op,
        };
        (steps, inputs) = counts(&op);
        op
    } else {
        op
    };
    Ok(Arc::new(Node { op, dtype, shape, device, steps, inputs }))
}

pub(crate) type NodeRef = Arc<Node>;

/// The operations of a formula.
#[derive(Debug)]
pub(crate) enum Op {
    /// An array (an input of the kernel).
    Leaf(Array),
    /// A Rust scalar, weak, taken in the node's dtype (the loop dtype of the operation that
    /// uses it, as the unfused operation passes it).
    Scalar(Scalar),
    /// The same boolean everywhere (NumPy 2's comparison of an integer array with a Python
    /// int outside its range).
    Const(bool),
    /// A unary ufunc computed in loop dtype `.1`.
    Unary(UnaryOp, DType, NodeRef),
    /// A binary ufunc computed in loop dtype `.1`.
    Binary(BinaryOp, DType, NodeRef, NodeRef),
    /// `where(c, x, y)` (c boolean, x and y converted to the node's dtype).
    Where(NodeRef, NodeRef, NodeRef),
    /// A cast to the node's dtype (`astype`).
    Cast(NodeRef),
}

/// One side of a node: a subtree or a Rust scalar (typed by the operation).
pub(crate) enum Side {
    Node(NodeRef),
    Scalar(Scalar),
}

impl Side {
    fn kind(&self) -> Kind {
        match self {
            Side::Node(n) => Kind::Arr(n.dtype),
            Side::Scalar(s) => Kind::Scalar(*s),
        }
    }
    fn shape(&self) -> &[usize] {
        match self {
            Side::Node(n) => &n.shape,
            Side::Scalar(_) => &[],
        }
    }
    fn device(&self) -> Option<Device> {
        match self {
            Side::Node(n) => n.device,
            Side::Scalar(_) => None,
        }
    }
    /// The side as an operand of loop dtype `l`.
    fn typed(self, l: DType) -> NodeRef {
        match self {
            Side::Node(n) => n,
            Side::Scalar(s) => {
                Arc::new(Node { op: Op::Scalar(s), dtype: l, shape: Vec::new(), device: None, steps: 1, inputs: 1 })
            }
        }
    }
}

/// An array as a formula's leaf.
pub(crate) fn leaf(a: Array) -> NodeRef {
    let (dtype, shape, device) = (a.dtype(), a.shape().to_vec(), Some(a.device()));
    Arc::new(Node { op: Op::Leaf(a), dtype, shape, device, steps: 1, inputs: 1 })
}

/// The device of an operation's sides (`ufunc::device_of`'s rule and message).
fn device_of(op: &str, sides: &[Option<Device>]) -> Result<Device> {
    let mut dev = None;
    for d in sides.iter().flatten() {
        match dev {
            None => dev = Some(*d),
            Some(a) if a != *d => return Err(Error::DeviceMismatch { op: op.into(), a, b: *d }),
            _ => {}
        }
    }
    dev.ok_or_else(|| Error::InvalidArgument(format!("{op}: at least one argument must be an array")))
}

/// `op(x)`, resolved as `ufunc::unary`.
pub(crate) fn unary(op: UnaryOp, x: NodeRef) -> Result<NodeRef> {
    let (l, out) = op.resolve(x.dtype)?;
    let (shape, device) = (x.shape.clone(), x.device);
    node(Op::Unary(op, l, x), out, shape, device)
}

/// `op(a, b)`, resolved as `ufunc::binary` (devices, out-of-range comparisons, loop dtype,
/// integer powers, broadcasting, in that order).
pub(crate) fn binary(op: BinaryOp, a: Side, b: Side) -> Result<NodeRef> {
    let device = device_of(op.name(), &[a.device(), b.device()])?;
    if let Some(v) = ufunc::out_of_range_comparison(op, a.kind(), b.kind()) {
        let shape = broadcast_shape(op.name(), a.shape(), b.shape())?;
        return node(Op::Const(v), DType::Bool, shape, Some(device));
    }
    let (l, out) = ufunc::resolve_binary(op, a.kind(), b.kind())?;
    // NumPy rejects negative integer exponents: a check of the exponent's values, so an
    // exponent formula is computed here and enters the tree as an array.
    let b = match b {
        Side::Node(n) if op == BinaryOp::Power && l.is_signed_int() => {
            let e = eval(&n)?;
            ufunc::check_power(op, l, &Operand::Array(&e))?;
            Side::Node(leaf(e))
        }
        Side::Scalar(s) => {
            ufunc::check_power(op, l, &Operand::Scalar(s))?;
            Side::Scalar(s)
        }
        b => b,
    };
    let shape = broadcast_shape(op.name(), a.shape(), b.shape())?;
    node(Op::Binary(op, l, a.typed(l), b.typed(l)), out, shape, Some(device))
}

/// `where(c, x, y)`, resolved as `ufunc::where_` (a non-boolean condition is cast first).
pub(crate) fn where_(c: NodeRef, x: Side, y: Side) -> Result<NodeRef> {
    let device = device_of("where", &[c.device, x.device(), y.device()])?;
    let dt = ufunc::where_dtype(x.kind(), y.kind())?;
    let shape = broadcast_shape("where", &c.shape, x.shape())?;
    let shape = broadcast_shape("where", &shape, y.shape())?;
    let c = if c.dtype == DType::Bool { c } else { astype(c, DType::Bool)? };
    node(Op::Where(c, x.typed(dt), y.typed(dt)), dt, shape, Some(device))
}

/// `x.astype(dtype)` (a new array of the same values: the identity within one dtype).
pub(crate) fn astype(x: NodeRef, dtype: DType) -> Result<NodeRef> {
    let (shape, device) = (x.shape.clone(), x.device);
    node(Op::Cast(x), dtype, shape, device)
}

/// `clip(x, lo, hi)` as `ufunc::clip`: `minimum(maximum(x, lo), hi)`, integer bounds outside
/// an integer dtype's range clipping nothing on their side.
pub(crate) fn clip(x: NodeRef, lo: Side, hi: Side) -> Result<NodeRef> {
    let dt = x.dtype;
    let clamp = |s: Side| match s {
        Side::Scalar(v) => Side::Scalar(ufunc::clamp_bound(dt, v)),
        s => s,
    };
    let m = binary(BinaryOp::Maximum, Side::Node(x), clamp(lo))?;
    binary(BinaryOp::Minimum, Side::Node(m), clamp(hi))
}

/// `round(x, decimals)` as `ufunc::round`, made of the same steps.
pub(crate) fn round(x: NodeRef, decimals: i32) -> Result<NodeRef> {
    let dt = x.dtype;
    let rint = |n: NodeRef| unary(UnaryOp::Rint, n);
    let bin = |op, n: NodeRef, s: f64| binary(op, Side::Node(n), Side::Scalar(Scalar::Float(s)));
    if dt == DType::Bool {
        if decimals == 0 {
            return rint(x);
        }
        return Err(Error::UnsupportedDType { op: "round".into(), dtype: DType::Bool });
    }
    // Complex values round their two parts, as `ufunc::round` (NumPy's complex rint).
    if !dt.is_float() && !dt.is_complex() {
        if decimals >= 0 {
            return astype(x, dt);
        }
        let f = 10i64.checked_pow((-decimals) as u32).unwrap_or(i64::MAX) as f64;
        let q = rint(bin(BinaryOp::TrueDivide, astype(x, DType::Float64)?, f)?)?;
        return astype(bin(BinaryOp::Multiply, q, f)?, dt);
    }
    if decimals == 0 {
        return rint(x);
    }
    let f = 10f64.powi(decimals.abs());
    if decimals > 0 {
        bin(BinaryOp::TrueDivide, rint(bin(BinaryOp::Multiply, x, f)?)?, f)
    } else {
        bin(BinaryOp::Multiply, rint(bin(BinaryOp::TrueDivide, x, f)?)?, f)
    }
}

/// The formula's value: a leaf is itself (a view); a single operation on arrays and scalars
/// is the built-in operation (its kernel is already compiled); anything larger is fused.
pub(crate) fn eval(n: &NodeRef) -> Result<Array> {
    if let Op::Leaf(a) = &n.op {
        return Ok(a.view());
    }
    if let Some(r) = single(n) {
        return r;
    }
    let dev = n.device.expect("a formula has an array");
    let out = Array::alloc(&n.shape, n.dtype, dev, false)?;
    if out.size() > 0 {
        match dev {
            Device::Cpu => cpu::eval(n, &out)?,
            Device::Cuda(_) => cuda::eval(n, &out)?,
        }
    }
    Ok(out)
}

/// `op` of a formula over `axis` (NumPy's `sum(axis)`, `mean`, `var(ddof)`...), as
/// `Array::reduce` on the formula's value, with the same dtypes, bits and errors. Fused where
/// the unfused reduction reads the formula's (fresh, contiguous) value as one run per output:
/// the reduced axes are the trailing ones (all of them for `None`). On the GPU the reduction
/// kernel computes the formula where it would load the value, in the same order, its inputs
/// of any layout (broadcast, strided, 0-d); on the CPU the sum-like reductions of a
/// float32/float64 formula over all axes, its array inputs of the formula's shape and
/// C-contiguous (or 0-d), take partial sums of the blocks as the unfused pass takes them of the
/// array, and the reductions whose result does not depend on the order (any/all; integer
/// sums, products, minima, maxima; `cpu::exact`) fold the blocks. Anything else computes the
/// formula first.
pub(crate) fn reduce(n: NodeRef, op: ReduceOp, axis: Axes, ddof: f64) -> Result<Array> {
    let unfused = |n: &NodeRef| eval(n)?.reduce(op, axis.clone(), false, ddof);
    let plain = leaves(&n).iter().all(|l| match &l.op {
        Op::Leaf(a) => a.ndim() == 0 || (a.shape() == n.shape.as_slice() && a.is_c_contiguous()),
        _ => false,
    });
    let nd = n.shape.len();
    if matches!(n.op, Op::Leaf(_))
        || matches!(op, ReduceOp::ArgMin | ReduceOp::ArgMax)
        || n.dtype.is_complex()
        || nd == 0
    {
        return unfused(&n);
    }
    let axes = axis.resolve(nd)?;
    let k = axes.len();
    let nred: usize = n.shape[nd - k.min(nd)..].iter().product();
    let nout: usize = n.shape[..nd - k.min(nd)].iter().product();
    let trailing = k > 0 && axes.iter().enumerate().all(|(i, &a)| a == nd - k + i);
    if !trailing || nred == 0 || nout == 0 {
        return unfused(&n);
    }
    let dev = n.device.expect("a formula has an array");
    let out = Array::alloc(&n.shape[..nd - k], op.out_dtype(n.dtype), dev, false)?;
    match dev {
        Device::Cuda(_) => cuda::reduce(&n, op, nred, ddof, &out)?,
        Device::Cpu => {
            let sums = matches!(op, ReduceOp::Sum | ReduceOp::Mean | ReduceOp::Var | ReduceOp::Std);
            if nout == 1 && plain && cpu::exact(op, n.dtype) {
                cpu::reduce_exact(&n, op, &out)?
            } else if nout == 1 && sums && plain && matches!(n.dtype, DType::Float32 | DType::Float64) {
                cpu::reduce_all(&n, op, ddof, &out)?
            } else {
                return unfused(&n);
            }
        }
    }
    Ok(out)
}

/// A node whose operands are all arrays or scalars: the built-in operation.
fn single(n: &NodeRef) -> Option<Result<Array>> {
    fn arr(c: &NodeRef) -> Option<Operand<'_>> {
        match &c.op {
            Op::Leaf(a) => Some(Operand::Array(a)),
            Op::Scalar(s) => Some(Operand::Scalar(*s)),
            _ => None,
        }
    }
    Some(match &n.op {
        Op::Unary(op, _, x) => match &x.op {
            Op::Leaf(a) => ufunc::unary(*op, a),
            _ => return None,
        },
        Op::Binary(op, _, a, b) => ufunc::binary(*op, arr(a)?, arr(b)?),
        Op::Cast(x) => match &x.op {
            Op::Leaf(a) => a.astype(n.dtype),
            _ => return None,
        },
        _ => return None,
    })
}

/// Whether two leaves are the same elements (`x.expr()` twice is one input).
pub(crate) fn same_leaf(a: &NodeRef, b: &NodeRef) -> bool {
    if Arc::ptr_eq(a, b) {
        return true;
    }
    match (&a.op, &b.op) {
        (Op::Leaf(x), Op::Leaf(y)) => {
            Arc::ptr_eq(&x.storage, &y.storage)
                && x.offset == y.offset
                && x.dtype == y.dtype
                && x.shape == y.shape
                && x.strides == y.strides
        }
        _ => false,
    }
}

/// Every array leaf node of a tree, depth first, left to right (a leaf met twice appears
/// twice; the GPU's kernel makes one input of such leaves, [`same_leaf`]).
pub(crate) fn leaves(n: &NodeRef) -> Vec<NodeRef> {
    fn walk(n: &NodeRef, out: &mut Vec<NodeRef>) {
        match &n.op {
            Op::Leaf(_) => out.push(n.clone()),
            Op::Scalar(_) | Op::Const(_) => {}
            Op::Unary(_, _, x) | Op::Cast(x) => walk(x, out),
            Op::Binary(_, _, a, b) => {
                walk(a, out);
                walk(b, out);
            }
            Op::Where(c, x, y) => {
                walk(c, out);
                walk(x, out);
                walk(y, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(n, &mut out);
    out
}
