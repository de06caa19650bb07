// A grid kernel's parameter that is neither a scalar, a slice nor a view.
#[cuprum_macros::kernel]
fn fill(out: Vec<f32>) {
    let _ = out;
}

fn main() {}
