// A method outside the subset: the error names it, at the call.
#[cuprum_macros::vectorize(f32(f32))]
fn bits(x: f32) -> f32 {
    x.to_bits() as f32
}

fn main() {}
