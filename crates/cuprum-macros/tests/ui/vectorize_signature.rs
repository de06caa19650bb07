// A signature with another number of inputs than the function has.
#[cuprum_macros::vectorize(f32(f32))]
fn add(x: f32, y: f32) -> f32 {
    x + y
}

fn main() {}
